/**
 * @module http/respond — JSON and text responses with the request id, and the error body
 * contract `{ ok: false, error, status, message, request_id }`.
 */
import { ApiError, toApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { RequestContext } from "./request-context.ts";

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function textResponse(body: string, contentType: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status: 200, headers: { "content-type": `${contentType}; charset=utf-8`, ...headers } });
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
