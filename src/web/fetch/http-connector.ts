/**
 * @module web/fetch/http-connector — opens one HTTP(S) exchange to an already-vetted IPv4 address.
 *
 * Bun's fetch to the vetted address itself, with the URL's host in the Host header and, over
 * TLS, as the server name: SNI names the host and the certificate is verified against it
 * (`tls.serverName`; a certificate for another name fails with ERR_TLS_CERT_ALTNAME_INVALID).
 * No DNS query happens here, so a rebinding answer has no window. Proxy variables in the
 * environment are ignored (`proxy: false`): a proxy would choose the address itself. Redirects
 * and content-encoding are left to the caller (each hop is vetted again; the body is decoded
 * under the size cap). node:http(s) with a pinned `lookup`, used before, took ~1.8 times the CPU
 * per read and 20+ MiB more peak RSS at 16 concurrent reads (scripts/bench/read-path.ts). Tests
 * inject a recording connector to prove no connection was attempted.
 */
import { ApiError } from "../../errors.ts";
import { fetchDecodesBodies } from "../../runtime/fetch.ts";

export interface ConnectRequest {
  url: URL;
  /** The vetted IPv4 address; the only address the socket may go to. */
  address: string;
  port: number;
  headers: Record<string, string>;
  /** Limit on connecting and receiving the response headers (the body is the caller's to time). */
  headersTimeoutMs: number;
  signal: AbortSignal;
}

export interface SourceResponse {
  status: number;
  /** Lowercase header names; repeated headers joined with ", " (set-cookie is not needed). */
  headers: Record<string, string>;
  /** Raw (still content-encoded) body bytes. */
  body: AsyncIterable<Uint8Array>;
  /** Stops the transfer and frees the socket. */
  close(): void;
}

export type Connector = (request: ConnectRequest) => Promise<SourceResponse>;

export interface ConnectorOptions {
  /** Extra trusted CA certificates (PEM), e.g. a test CA. The system store is used otherwise. */
  ca?: string | string[];
}

/** The options of Bun's fetch this connector relies on, beyond RequestInit. */
interface PinnedFetchInit extends RequestInit {
  decompress: false;
  proxy: false;
  tls?: { serverName: string; ca?: string | string[] };
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET", "EPIPE", "EAI_AGAIN"]);

function describeFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && (code.startsWith("ERR_TLS") || code.includes("CERT") || code.includes("SSL"))) {
    return "its TLS certificate could not be verified";
  }
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return `the connection failed (${code})`;
  return "the connection failed";
}

/** A connector that pins every connection to the vetted address. */
export function createPinnedConnector(options: ConnectorOptions = {}): Connector {
  return async (request) => {
    const { url, address, port } = request;
    if (request.signal.aborted) throw new ApiError("SOURCE_TIMEOUT", { message: "The source did not answer in time." });
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal.reason);
    request.signal.addEventListener("abort", onAbort, { once: true });
    let headersLate = false;
    const headersTimer = setTimeout(() => {
      headersLate = true;
      controller.abort();
    }, request.headersTimeoutMs);
    const init: PinnedFetchInit = {
      method: "GET",
      // Under Deno, fetch would decode the body and keep its content-encoding (runtime/fetch.ts).
      headers: { ...request.headers, host: url.host, ...(fetchDecodesBodies ? { "accept-encoding": "identity" } : {}) },
      redirect: "manual",
      decompress: false,
      proxy: false,
      keepalive: false,
      signal: controller.signal,
      ...(url.protocol === "https:" ? { tls: { serverName: url.hostname, ...(options.ca ? { ca: options.ca } : {}) } } : {}),
    };
    let response: Response;
    try {
      response = await fetch(`${url.protocol}//${address}:${port}${url.pathname}${url.search}`, init);
    } catch (error) {
      if (headersLate) throw new ApiError("SOURCE_TIMEOUT", { message: "The source did not connect and answer in time." });
      if (request.signal.aborted) throw new ApiError("SOURCE_TIMEOUT", { message: "The source did not answer in time.", cause: error });
      throw new ApiError("SOURCE_UNREACHABLE", { message: `The source could not be reached: ${describeFailure(error)}.`, cause: error });
    } finally {
      clearTimeout(headersTimer);
      request.signal.removeEventListener("abort", onAbort);
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const length = Number(headers["content-length"] ?? Number.NaN);
    const body = Number.isSafeInteger(length) && length <= WHOLE_BODY_MAX_BYTES ? wholeBodyOf(response) : chunksOf(response.body);
    return { status: response.status, headers, body, close: () => controller.abort() };
  };
}

/**
 * A body whose length is announced and at most this is read in one piece: Bun gathers it natively
 * (the length bounds it). Read chunk by chunk, the read-path bench's fetch runs took 0.44-0.50 ms
 * of CPU and 42-45 MiB of peak RSS; in one piece, 0.38 ms and 32-37 MiB. Longer or unannounced
 * bodies stream, so the caller's cap stops them early.
 */
const WHOLE_BODY_MAX_BYTES = 1024 * 1024;

async function* wholeBodyOf(response: Response): AsyncGenerator<Uint8Array> {
  const bytes = await response.bytes();
  if (bytes.byteLength > 0) yield bytes;
}

async function* chunksOf(stream: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!stream) return;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
