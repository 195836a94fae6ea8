/**
 * @module http/serve — the runtime seam. Wraps the app's fetch handler with what every request
 * needs (request id, 1 MiB body cap, client address, one log line, the outcome row) and starts
 * Bun's server. A Deno build swaps `startServer` only.
 */
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { RequestOutcomeStore } from "../store/request-outcomes.ts";
import { attachContext, newRequestId, type RequestContext } from "./request-context.ts";
import { addCorsHeaders, preflightResponse } from "./cors.ts";
import { errorResponse } from "./respond.ts";
import { LEGACY_PAYMENT_HEADER, PAYMENT_SIGNATURE_HEADER } from "../x402/headers.ts";

export const maxBodyBytes = 1024 * 1024;

export type FetchHandler = (request: Request) => Promise<Response> | Response;
/** `clientIp` may be a function: the runtime's address lookup then runs only for requests that read it. */
export type RequestHandler = (request: Request, clientIp: string | (() => string)) => Promise<Response>;

/** `all`: one line per request; `errors-and-paid`: only answers ≥ 400 (but 402 price previews) and calls that carried a payment. */
export type RequestLogMode = "all" | "errors-and-paid";

export interface HandlerDeps {
  readonly log: Logger;
  readonly outcomes?: RequestOutcomeStore;
  readonly logRequests?: RequestLogMode;
}

export function createRequestHandler(appFetch: FetchHandler, { log, outcomes, logRequests = "all" }: HandlerDeps): RequestHandler {
  return async (incoming, clientIp) => {
    const context = newContext(clientIp);
    let response: Response;
    try {
      const request = await bufferBody(incoming);
      attachContext(request, context);
      response = request.method === "OPTIONS" ? preflightResponse() : await appFetch(request);
    } catch (error) {
      response = errorResponse(error, context, log);
    }
    response.headers.set("x-request-id", context.id);
    addCorsHeaders(response.headers);
    const path = context.route ?? new URL(incoming.url).pathname;
    const ms = Math.round(performance.now() - context.startedAt);
    const outcome = context.outcome ?? (response.status < 400 ? "ok" : `http_${response.status}`);
    if (logRequests === "all" || isErrorOrPaid(incoming, response.status, outcome)) {
      log.info("request", {
        method: incoming.method,
        path,
        status: response.status,
        ms,
        request_id: context.id,
        outcome,
        ...(context.operationId ? { operation: context.operationId } : {}),
      });
    }
    if (outcomes && incoming.method === "POST") {
      try {
        outcomes.record({
          requestId: context.id,
          operationId: context.operationId ?? null,
          method: incoming.method,
          route: path,
          status: response.status,
          outcome,
          durationMs: ms,
          at: new Date().toISOString(),
        });
      } catch (error) {
        log.warn("could not record request outcome", { request_id: context.id, error: (error as Error).message });
      }
    }
    return response;
  };
}

function newContext(clientIp: string | (() => string)): RequestContext {
  const id = newRequestId();
  const startedAt = performance.now();
  if (typeof clientIp === "string") return { id, startedAt, clientIp };
  let address: string | undefined;
  return {
    id,
    startedAt,
    get clientIp() {
      return (address ??= clientIp());
    },
  };
}

function isErrorOrPaid(request: Request, status: number, outcome: string): boolean {
  if (status >= 400 && outcome !== "challenge") return true;
  return request.headers.has(PAYMENT_SIGNATURE_HEADER) || request.headers.has(LEGACY_PAYMENT_HEADER);
}

/** Reads at most 1 MiB of body (a declared length is checked first; a streamed body is counted as it arrives) and re-wraps the request. */
async function bufferBody(request: Request): Promise<Request> {
  if (request.method === "GET" || request.method === "HEAD" || !request.body) return request;
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBodyBytes) throw new ApiError("BODY_TOO_LARGE");
  // A declared length within the cap: the runtime's own reader (Bun.serve stops at the declared length).
  const body = declared !== null ? new Uint8Array(await request.arrayBuffer()) : await readCapped(request.body);
  if (body.byteLength > maxBodyBytes) throw new ApiError("BODY_TOO_LARGE");
  return new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
}

async function readCapped(stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBodyBytes) {
      await reader.cancel().catch(() => {});
      throw new ApiError("BODY_TOO_LARGE");
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

export interface RunningServer {
  readonly url: URL;
  readonly port: number;
  stop(): Promise<void>;
}

export function startServer(handler: RequestHandler, options: { host: string; port: number }): RunningServer {
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    // Backstop above our own cap so an oversize body still gets our JSON 413.
    maxRequestBodySize: maxBodyBytes * 2,
    idleTimeout: 255,
    fetch(request, srv) {
      return handler(request, () => srv.requestIP(request)?.address ?? "unknown");
    },
  });
  return {
    url: new URL(`http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${server.port}/`),
    port: server.port ?? options.port,
    stop: () => server.stop(true),
  };
}
