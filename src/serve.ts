/**
 * @module serve — the runtime seam, above the app it calls: wraps the app's fetch handler with what
 * every request needs (request id, 1 MiB body cap, client address, one log line, the outcome row).
 * The app is handed in (boot.ts), so a request goes down from here through app.ts to the rooms below
 * and never comes back up (docs/layout.md, "Walks"); http/serve.ts starts it on the runtime's server.
 */
import { jsonMembers, type Logger } from "./log.ts";
import type { RequestOutcomeStore } from "./store/request-outcomes.ts";
import type { ClientResolver } from "./http/client-address.ts";
import type { FreeTally } from "./http/free-tally.ts";
import { addCorsHeaders, preflightResponse } from "./http/cors.ts";
import { attachContext, type RequestContext } from "./http/request-context.ts";
import { readRequestTarget, type RequestTarget, ROUTING_ORIGIN } from "./http/request-target.ts";
import { errorResponse } from "./http/respond.ts";
import { bufferBody, type FetchHandler, type FreeAnswer, type RequestHandler, ServedRequest } from "./http/serve.ts";
import { LEGACY_PAYMENT_HEADER, PAYMENT_SIGNATURE_HEADER } from "./x402/headers.ts";

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

function isErrorOrPaid(request: Request, status: number, outcome: string): boolean {
  if (status >= 400 && outcome !== "challenge") return true;
  return request.headers.has(PAYMENT_SIGNATURE_HEADER) || request.headers.has(LEGACY_PAYMENT_HEADER);
}
