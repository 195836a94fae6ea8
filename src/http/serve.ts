/**
 * @module http/serve — the runtime seam. Wraps the app's fetch handler with what every request
 * needs (request id, 1 MiB body cap, client address, one log line, the outcome row) and starts
 * it on the runtime's server (runtime/serve.ts: Bun or Deno).
 */
import { ApiError } from "../errors.ts";
import { type PeerLookup, serveHttp } from "../runtime/serve.ts";
import { jsonMembers, type Logger } from "../log.ts";
import type { RequestOutcomeStore } from "../store/request-outcomes.ts";
import type { ClientResolver } from "./client-address.ts";
import type { FreeTally } from "./free-tally.ts";
import { attachContext, newRequestId, type RequestContext } from "./request-context.ts";
import { addCorsHeaders, preflightResponse } from "./cors.ts";
import { readRequestTarget, type RequestTarget, ROUTING_ORIGIN } from "./request-target.ts";
import { errorResponse } from "./respond.ts";
import { LEGACY_PAYMENT_HEADER, PAYMENT_SIGNATURE_HEADER } from "../x402/headers.ts";

export const maxBodyBytes = 1024 * 1024;

export type FetchHandler = (request: Request) => Promise<Response> | Response;
/**
 * A free document's answer to a GET, given the request as it came and its context: no body to
 * read and no router or Elysia lifecycle in between (the app registers the same answer as a route).
 */
export type FreeAnswer = (request: Request, context: RequestContext) => Promise<Response> | Response;
/**
 * `client` is the peer's address, or the runtime's lookup (runtime/serve.ts), which then runs only
 * for requests that read it. Answers synchronously when it can (a free document), so the runtime
 * gets no promise for it.
 */
export type RequestHandler = (request: Request, client: string | PeerLookup) => Promise<Response> | Response;

/**
 * `all`: one line per request; `calls`: every request but the free documents answered below 400,
 * which the tally counts instead; `errors-and-paid`: only answers ≥ 400 (but 402 price previews)
 * and calls that carried a payment.
 */
export type RequestLogMode = "all" | "calls" | "errors-and-paid";

export interface HandlerDeps {
  readonly log: Logger;
  readonly outcomes?: RequestOutcomeStore;
  /** Deadline for the request body once its headers are in (408 REQUEST_TIMEOUT); default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Resolves the client behind a trusted reverse proxy (--trust-proxy); without it the peer is the client. */
  readonly clients?: ClientResolver;
  /** Sees every answered request (the admin listener's metrics). */
  readonly observe?: (request: { method: string; route: string | undefined; status: number; ms: number; outcome: string }) => void;
  readonly logRequests?: RequestLogMode;
  /** GET answers by exact path, served before the app's router (the free documents). */
  readonly freeAnswers?: ReadonlyMap<string, FreeAnswer>;
  /** Counts the free documents answered without a line of their own (modes other than `all`). */
  readonly freeTally?: FreeTally;
  /** Paths whose CORS preflight the app answers itself (the agent doors grant only their allowed origins). */
  readonly ownPreflights?: ReadonlySet<string>;
}

export const defaultRequestTimeoutMs = 30_000;

/** Answers that leave the client mid-request (body unread or cut off): the connection is not reused. */
const closeAfter = new Set(["BODY_TOO_LARGE", "REQUEST_TIMEOUT", "CLIENT_CLOSED"]);

export function createRequestHandler(
  appFetch: FetchHandler,
  { log, outcomes, requestTimeoutMs = defaultRequestTimeoutMs, clients, observe, logRequests = "all", freeAnswers, freeTally, ownPreflights }: HandlerDeps,
): RequestHandler {
  /** Headers, the log line (or the tally of free documents), the metrics and the outcome row of an answered request. */
  const finish = (incoming: Request, context: RequestContext, path: string, response: Response, freeDocument = false): Response => {
    if (context.outcome !== undefined && closeAfter.has(context.outcome)) response.headers.set("connection", "close");
    if (!context.headersAdded) {
      response.headers.set("x-request-id", context.id);
      addCorsHeaders(response.headers);
    }
    const status = response.status;
    const route = context.route ?? path.slice(0, 200);
    const counted = freeDocument && status < 400 && logRequests !== "all";
    if (counted) {
      freeTally?.count(route);
      // Nothing else to write for a counted document unless the metrics watch.
      if (!observe) return response;
    }
    const method = incoming.method;
    const ms = Math.round(performance.now() - context.startedAt);
    const outcome = context.outcome ?? (status < 400 ? "ok" : `http_${status}`);
    if (!counted && (logRequests !== "errors-and-paid" || context.paymentInBody || isErrorOrPaid(incoming, status, outcome))) {
      // Written on every request: its members by hand (the request id is hex; the rest is quoted).
      log.info(
        "request",
        jsonMembers(
          `"method":${JSON.stringify(method)},"path":${JSON.stringify(route)},"status":${status},"ms":${ms},"request_id":"${context.id}","outcome":${JSON.stringify(outcome)},"client":${JSON.stringify(context.clientIp)}${
            context.operationId ? `,"operation":${JSON.stringify(context.operationId)}` : ""
          }`,
        ),
      );
    }
    observe?.({ method, route: context.route, status, ms, outcome });
    if (outcomes && method === "POST") {
      try {
        outcomes.record({
          requestId: context.id,
          operationId: context.operationId ?? null,
          method,
          route,
          status,
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

  /** Everything but a free document: the body read within its limits, then the app. */
  const routed = async (incoming: Request, context: RequestContext, target: RequestTarget): Promise<Response> => {
    let response: Response;
    try {
      // The request as it came when the router can read it (an origin of 11+ characters), else on our own origin.
      const routable = target.origin.length >= 11 && incoming.url.startsWith(target.origin) && incoming.url.length === target.origin.length + target.pathAndQuery.length;
      const request = await bufferBody(incoming, routable ? incoming.url : ROUTING_ORIGIN + target.pathAndQuery, requestTimeoutMs);
      attachContext(request, context);
      response = request.method === "OPTIONS" && !ownPreflights?.has(target.path) ? preflightResponse() : await appFetch(request);
    } catch (error) {
      response = errorResponse(error, context, log);
    }
    return finish(incoming, context, target.path, response);
  };

  // Not an async function: a free document answered synchronously goes back to the runtime without a promise in between.
  return (incoming, peer) => {
    // The peer's address (and the client behind a trusted proxy) is looked up only when something reads it.
    const context = new ServedRequest(incoming, peer, clients);
    let path = "/";
    try {
      const url = incoming.url;
      // A URL without an authority (a missing or unusable Host) sends us to the header for the reason.
      const target = readRequestTarget(url, typeof peer !== "string" && peer.urlCarriesHost && url.charCodeAt(0) !== 47 ? undefined : incoming.headers.get("host"));
      path = target.path;
      context.origin = target.origin;
      const free = incoming.method === "GET" ? freeAnswers?.get(path) : undefined;
      if (!free) return routed(incoming, context, target);
      const answered = free(incoming, context);
      if (!(answered instanceof Promise)) return finish(incoming, context, path, answered, true);
      return answered.then(
        (response) => finish(incoming, context, target.path, response, true),
        (error: unknown) => finish(incoming, context, target.path, errorResponse(error, context, log), true),
      );
    } catch (error) {
      try {
        return finish(incoming, context, path, errorResponse(error, context, log));
      } catch (failure) {
        // Like the async path: the handler's own failure reaches the runtime's error answer.
        return Promise.reject(failure);
      }
    }
  };
}

/** A request's context whose client address is looked up on first read (a class: one shape for every request). */
class ServedRequest implements RequestContext {
  readonly id = newRequestId();
  readonly startedAt = performance.now();
  origin = ROUTING_ORIGIN;
  headersAdded?: boolean;
  paymentInBody?: boolean;
  operationId?: string;
  outcome?: string;
  route?: string;
  #address: string | undefined;
  readonly #request: Request;
  readonly #peer: string | PeerLookup;
  readonly #clients: ClientResolver | undefined;

  constructor(request: Request, peer: string | PeerLookup, clients: ClientResolver | undefined) {
    this.#request = request;
    this.#peer = peer;
    this.#clients = clients;
  }

  get clientIp(): string {
    if (this.#address === undefined) {
      const peer = typeof this.#peer === "string" ? this.#peer : this.#peer.peer(this.#request);
      this.#address = this.#clients ? this.#clients.resolve(peer, this.#request.headers) : peer;
    }
    return this.#address;
  }
}

function isErrorOrPaid(request: Request, status: number, outcome: string): boolean {
  if (status >= 400 && outcome !== "challenge") return true;
  return request.headers.has(PAYMENT_SIGNATURE_HEADER) || request.headers.has(LEGACY_PAYMENT_HEADER);
}

/**
 * Reads at most 1 MiB of body within the deadline (a declared length is checked first; the body is
 * counted as it arrives) and re-wraps the request on `url`. A body cut off by the client is
 * CLIENT_CLOSED (499), never an internal error.
 */
async function bufferBody(request: Request, url: string, timeoutMs: number): Promise<Request> {
  // A bodiless request on its own URL is passed as is: reading `signal` or `headers` makes Bun build objects each time.
  const bodiless = request.method === "GET" || request.method === "HEAD" || !request.body;
  if (bodiless && url === request.url) return request;
  const init = { method: request.method, headers: request.headers, signal: request.signal };
  if (bodiless) return new Request(url, init);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBodyBytes) throw new ApiError("BODY_TOO_LARGE");
  const body = await readCapped(request.body, timeoutMs);
  return new Request(url, { ...init, body });
}

async function readCapped(stream: ReadableStream<Uint8Array>, timeoutMs: number): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError("REQUEST_TIMEOUT", { message: `The request body did not arrive within ${timeoutMs} ms; nothing was charged.` })), timeoutMs);
  });
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await Promise.race([reader.read(), deadline]);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new ApiError("CLIENT_CLOSED", { message: "The caller closed the connection before the request body arrived; nothing was charged.", cause: error });
      }
      if (next.done) break;
      total += next.value.byteLength;
      if (total > maxBodyBytes) throw new ApiError("BODY_TOO_LARGE");
      chunks.push(next.value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
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

export function startServer(handler: RequestHandler, options: { host: string; port: number; log: Logger }): RunningServer {
  const server = serveHttp({
    host: options.host,
    port: options.port,
    fetch: handler,
    onError(error) {
      // Only reached if the handler itself failed: still our JSON, never a page or a path.
      options.log.error("request handler failed", { error: error.message, stack: error.stack });
      const body = new ApiError("INTERNAL_ERROR").toBody();
      return new Response(JSON.stringify(body), { status: 500, headers: { "content-type": "application/json; charset=utf-8", connection: "close" } });
    },
  });
  return {
    url: new URL(`http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${server.port}/`),
    port: server.port,
    stop: () => server.stop(),
  };
}
