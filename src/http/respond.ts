/**
 * @module http/respond — JSON and text responses with the request id, and the error body
 * contract `{ ok: false, error, status, message, request_id }`.
 */
import { ApiError, toApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { corsHeaders } from "./cors.ts";
import type { RequestContext } from "./request-context.ts";

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** Headers many answers share (content type, ETag, caching) with the CORS headers, built once for `readyAnswer` (and used only through it). */
export function readyHeaders(fields: Record<string, string>): Headers {
  return new Headers({ ...fields, ...corsHeaders });
}

/**
 * An answer with ready headers and its X-Request-Id: copying a built Headers costs less than building
 * one per answer. The id is set on the ready headers just before the copy (a Response copies its
 * headers when made), which spares making the answer's own headers object to set it there.
 */
export function readyAnswer(body: BodyInit | null, status: number, headers: Headers, context: RequestContext): Response {
  headers.set("x-request-id", context.id);
  context.headersAdded = true;
  return new Response(body, { status, headers });
}

/** Adds `request_id` to an object body (the spec shows it in results). */
export function withRequestId(body: unknown, requestId: string): unknown {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) return { ...body, request_id: requestId };
  return body;
}

/** Turns anything thrown into the public error body; unknown failures are logged with their cause, never sent. */
export function errorResponse(thrown: unknown, context: RequestContext, log: Logger): Response {
  const error = toApiError(thrown);
  context.outcome = error.code;
  if (error.code === "INTERNAL_ERROR") {
    const cause = thrown instanceof ApiError ? thrown.cause : thrown;
    log.error("internal error", {
      request_id: context.id,
      error: cause instanceof Error ? cause.message : String(cause),
      stack: cause instanceof Error ? cause.stack : undefined,
    });
  }
  return jsonResponse(error.toBody(context.id), error.status, error.headers);
}
