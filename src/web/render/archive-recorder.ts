/**
 * @module web/render/archive-recorder — records every request a page makes and the response it got, as
 * the browser saw them (CDP Network events; bodies decoded), inside the archive's bounds: a response
 * over the per-resource cap, past the total byte cap or past the count cap is left out with its
 * reason, and so is anything the render guard refused or the browser did not finish. The guard
 * itself (render-page.ts, proxy-guard.ts) still decides what the page may fetch: this only watches.
 */
import type { CDPSession, Page, Protocol } from "puppeteer-core";
import type { ArchiveLimits, CapturedExchange, LeftOutResource } from "./contract.ts";

interface InFlight {
  url: string;
  method: string;
  headers: Record<string, string>;
  postData?: string;
  sentAt: string;
  type: string;
  response?: Protocol.Network.Response;
  /** Decoded bytes received so far. */
  received: number;
  /** Why it will be left out, once known. */
  leftOutBecause?: string;
  /** The page's own document (or a redirect hop to it): the capture fails without it. */
  main: boolean;
}

export interface ArchiveRecorder {
  /** Waits for the bodies being read, then lists what was kept and left out (requests still in flight are left out). */
  finish(): Promise<{ exchanges: CapturedExchange[]; leftOut: LeftOutResource[] }>;
  stop(): void;
}

const headerOf = (headers: Protocol.Network.Headers, name: string): string | undefined => {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : String(headers[key]);
};

const plainHeaders = (headers: Protocol.Network.Headers): Record<string, string> => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));

/** Starts recording `page`'s traffic; call before it navigates. */
export async function startArchiveRecorder(page: Page, limits: ArchiveLimits): Promise<ArchiveRecorder> {
  const cdp: CDPSession = await page.createCDPSession();
  const inFlight = new Map<string, InFlight>();
  const exchanges: CapturedExchange[] = [];
  const leftOut: LeftOutResource[] = [];
  const reading: Promise<void>[] = [];
  let keptBytes = 0;
  let stopped = false;
  let mainRequestId: string | undefined;

  const leaveOut = (entry: InFlight, reason: string): void => {
    leftOut.push({ url: entry.url, reason });
  };

  const countCap = () => `over the resource count cap (${limits.maxResources})`;
  const byteCap = () => `over the archive byte cap (${limits.maxBytes} bytes)`;
  /** For each exchange kept, in order: whether it is the page's own document. */
  const keptIsMain: boolean[] = [];

  /**
   * Keeps the exchange when it fits the count and byte caps (a body is counted once read). Bodies are
   * read in whatever order the browser hands them back, so the page's own document may come after
   * resources that filled the caps: they make room for it, the latest kept first.
   */
  const keep = (entry: InFlight, body: Uint8Array) => {
    const response = entry.response!;
    const over = () => (exchanges.length >= limits.maxResources ? countCap() : keptBytes + body.length > limits.maxBytes ? byteCap() : undefined);
    for (let reason = over(); reason !== undefined && entry.main; reason = over()) {
      const last = keptIsMain.lastIndexOf(false);
      if (last < 0) break;
      const [evicted] = exchanges.splice(last, 1);
      keptIsMain.splice(last, 1);
      keptBytes -= evicted!.body.length;
      leftOut.push({ url: evicted!.url, reason });
    }
    const reason = over();
    if (reason !== undefined) return leaveOut(entry, reason);
    keptIsMain.push(entry.main);
    keptBytes += body.length;
    exchanges.push({
      url: entry.url,
      method: entry.method,
      requestHeaders: entry.headers,
      ...(entry.postData !== undefined ? { requestBody: new TextEncoder().encode(entry.postData) } : {}),
      status: response.status,
      statusText: response.statusText,
      protocol: response.protocol ?? "http/1.1",
      responseHeaders: plainHeaders(response.headers),
      body,
      sentAt: entry.sentAt,
      resourceType: entry.type,
    });
  };

  const readBody = async (requestId: string, entry: InFlight) => {
    try {
      const { body, base64Encoded } = await cdp.send("Network.getResponseBody", { requestId });
      const bytes = base64Encoded ? new Uint8Array(Buffer.from(body, "base64")) : new TextEncoder().encode(body);
      if (bytes.length > limits.maxResourceBytes) return leaveOut(entry, `larger than the per-resource cap (${limits.maxResourceBytes} bytes)`);
      keep(entry, bytes);
    } catch {
      leaveOut(entry, "the browser no longer held its body");
    }
  };

  cdp.on("Network.requestWillBeSent", (event: Protocol.Network.RequestWillBeSentEvent) => {
    if (stopped || !/^https?:/.test(event.request.url)) return;
    const previous = inFlight.get(event.requestId);
    // The first document requested is the page's own; a redirect keeps its request id.
    mainRequestId ??= event.type === "Document" ? event.requestId : undefined;
    if (previous && event.redirectResponse) {
      // A redirect hop: the same request id goes on to the next URL; the hop is kept with its empty body.
      previous.response = event.redirectResponse;
      if (isRefusedByGuard(event.redirectResponse)) leaveOut(previous, "refused by the render guard (not a public address)");
      else keep(previous, new Uint8Array());
    }
    inFlight.set(event.requestId, {
      url: event.request.url,
      method: event.request.method,
      headers: plainHeaders(event.request.headers),
      ...(event.request.postData !== undefined ? { postData: event.request.postData } : {}),
      sentAt: new Date(event.wallTime * 1000).toISOString(),
      type: event.type ?? "Other",
      received: 0,
      main: event.requestId === mainRequestId,
    });
  });
  cdp.on("Network.responseReceived", (event: Protocol.Network.ResponseReceivedEvent) => {
    const entry = inFlight.get(event.requestId);
    if (!entry) return;
    entry.response = event.response;
    const declared = Number(headerOf(event.response.headers, "content-length") ?? Number.NaN);
    if (isRefusedByGuard(event.response)) entry.leftOutBecause = "refused by the render guard (not a public address)";
    else if (declared > limits.maxResourceBytes) entry.leftOutBecause = `larger than the per-resource cap (${limits.maxResourceBytes} bytes)`;
  });
  cdp.on("Network.dataReceived", (event: Protocol.Network.DataReceivedEvent) => {
    const entry = inFlight.get(event.requestId);
    if (!entry) return;
    entry.received += event.dataLength;
    if (entry.received > limits.maxResourceBytes) entry.leftOutBecause ??= `larger than the per-resource cap (${limits.maxResourceBytes} bytes)`;
  });
  cdp.on("Network.loadingFinished", (event: Protocol.Network.LoadingFinishedEvent) => {
    const entry = inFlight.get(event.requestId);
    if (!entry) return;
    inFlight.delete(event.requestId);
    if (stopped) return;
    if (!entry.response) return leaveOut(entry, "finished without a response");
    if (entry.leftOutBecause) return leaveOut(entry, entry.leftOutBecause);
    reading.push(readBody(event.requestId, entry));
  });
  cdp.on("Network.loadingFailed", (event: Protocol.Network.LoadingFailedEvent) => {
    const entry = inFlight.get(event.requestId);
    if (!entry) return;
    inFlight.delete(event.requestId);
    const reason = event.blockedReason === "inspector" || /BLOCKED_BY_CLIENT/.test(event.errorText) ? "not fetched: the browser is not let load this kind of resource (audio, video, favicons, prefetches, pings)" : `failed: ${event.errorText}`;
    leaveOut(entry, entry.leftOutBecause ?? (/TUNNEL_CONNECTION_FAILED/.test(event.errorText) ? "refused by the render guard (not a public address)" : reason));
  });
  // The browser's buffers hold every body the caps could keep and the one that crosses them, with room to spare,
  // so a body is never evicted before it is read (one past the per-resource cap is left out whatever the buffer holds).
  // (A 64 KiB body was evicted from a 64 KiB + 1 byte resource buffer: the buffers are twice the caps, plus a margin.)
  const MiB = 1024 * 1024;
  const total = Math.min(2 * (limits.maxBytes + limits.maxResourceBytes) + 4 * MiB, 2 ** 31 - 1);
  await cdp.send("Network.enable", { maxTotalBufferSize: total, maxResourceBufferSize: Math.min(2 * limits.maxResourceBytes + MiB, total) });

  return {
    async finish() {
      // Reading one body may come after another finished: wait until none is left.
      while (reading.length > 0) await Promise.all(reading.splice(0));
      stopped = true;
      for (const entry of inFlight.values()) leaveOut(entry, "still loading when the capture ended");
      inFlight.clear();
      return { exchanges, leftOut };
    },
    stop() {
      stopped = true;
      void cdp.detach().catch(() => undefined);
    },
  };
}

/** The guard proxy answers a refused target itself (proxy-guard.ts): that answer is not the site's. */
function isRefusedByGuard(response: Protocol.Network.Response): boolean {
  return headerOf(response.headers, "x-tollbooth-proxy") === "refused";
}
