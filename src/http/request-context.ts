/**
 * @module http/request-context — what the server knows about one request beyond the Request
 * itself: its id, when it started, the client address (from the runtime, not from headers),
 * and what the handler decided (operation, outcome) for the log line.
 */

export interface RequestContext {
  readonly id: string;
  readonly startedAt: number;
  readonly clientIp: string;
  /** `http://<Host>` as the caller sent it (validated); public URLs use it only without --public-url. */
  origin: string;
  operationId?: string;
  /** `ok`, `challenge`, or an error code: set by whoever answers. */
  outcome?: string;
  /** Route pattern for logs (never the target URL or query). */
  route?: string;
}

const contexts = new WeakMap<Request, RequestContext>();

export function newRequestId(): string {
  return `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

export function attachContext(request: Request, context: RequestContext): void {
  contexts.set(request, context);
}

/** The context of a request; requests made in-process without the server wrapper get a fresh one. */
export function contextOf(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    context = { id: newRequestId(), startedAt: performance.now(), clientIp: "unknown", origin: URL.canParse(request.url) ? new URL(request.url).origin : "http://localhost" };
    contexts.set(request, context);
  }
  return context;
}
