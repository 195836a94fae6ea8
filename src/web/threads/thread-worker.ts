/**
 * @module web/threads/thread-worker — the worker side of thread-pool: answers each numbered request with
 * the handler's result, or with the error (an ApiError's code, message and details survive the
 * trip back). `after` runs once the answer is posted (e.g. a collection the caller should not wait for).
 */
import { ApiError, type ErrorCode } from "../../errors.ts";

export type ThreadReply<R> =
  | { id: number; ok: true; result: R }
  /** `code` (and `details`) are set when the handler threw an ApiError. */
  | { id: number; ok: false; code?: ErrorCode; message: string; details?: Record<string, unknown> };

declare const self: Worker;

export function serveThreadRequests<Q extends { id: number }, R>(handle: (request: Q) => R | Promise<R>, after?: (request: Q) => void): void {
  self.onmessage = async (event: MessageEvent<Q>) => {
    const request = event.data;
    let reply: ThreadReply<R>;
    try {
      reply = { id: request.id, ok: true, result: await handle(request) };
    } catch (error) {
      reply =
        error instanceof ApiError
          ? { id: request.id, ok: false, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }
          : { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    self.postMessage(reply);
    after?.(request);
  };
}
