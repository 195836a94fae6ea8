/**
 * @module http/request-context — what the server knows about one request beyond the Request
 * itself: its id, when it started, the client address (from the runtime, not from headers),
 * and what the handler decided (operation, outcome) for the log line.
 */
import { corsHeaders } from "./cors.ts";

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
  /** The response was built with X-Request-Id and the CORS headers (see answerHeaders): the server need not add them. */
  headersAdded?: boolean;
  /** A payment came in the body rather than a header (MCP's `_meta["x402/payment"]`): logged as a paid call. */
  paymentInBody?: boolean;
}

const contexts = new WeakMap<Request, RequestContext>();

const idsPerBatch = 256;
let batch: string[] = [];
let batchAt = idsPerBatch;

/** `req_` and 128 random bits in hex, made 256 at a time from one random draw and one hex encoding. */
export function newRequestId(): string {
  if (batchAt === idsPerBatch) {
    const hex = Buffer.from(crypto.getRandomValues(new Uint8Array(16 * idsPerBatch))).toString("hex");
    batch = Array.from({ length: idsPerBatch }, (_, i) => `req_${hex.slice(i * 32, i * 32 + 32)}`);
    batchAt = 0;
  }
  return batch[batchAt++]!;
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

/** The base URL of the server for a request: --public-url, else (payments off only: serving refuses otherwise) the caller's validated Host. */
export function baseUrlOf(publicUrl: string | undefined): (request: Request) => string {
  return publicUrl !== undefined ? () => publicUrl : (request) => contextOf(request).origin;
}

/** X-Request-Id and the CORS headers for a response built here, marking the context so the server does not set them again. */
export function answerHeaders(context: RequestContext): Record<string, string> {
  context.headersAdded = true;
  return { "x-request-id": context.id, ...corsHeaders };
}
