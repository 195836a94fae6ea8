/**
 * @module web/render/render-slots — the page pool's admission: at most `size` renders at once, at most
 * `maxQueue` waiting (beyond that AT_CAPACITY at once), first come first served.
 */
import { ApiError } from "../../errors.ts";

export interface RenderSlots {
  /** Resolves when a page is free; AT_CAPACITY when the queue is full, the signal aborts first or the pool closes. */
  acquire(signal: AbortSignal): Promise<void>;
  release(): void;
  active(): number;
  queued(): number;
  close(): void;
}

interface Waiter {
  grant(): void;
  refuse(error: ApiError): void;
}

export function createRenderSlots(size: number, maxQueue: number): RenderSlots {
  let active = 0;
  let closed = false;
  const waiting: Waiter[] = [];

  return {
    acquire(signal) {
      if (closed) return Promise.reject(new ApiError("RENDER_UNAVAILABLE", { message: "The renderer is shutting down." }));
      if (active < size) {
        active++;
        return Promise.resolve();
      }
      if (waiting.length >= maxQueue || signal.aborted) {
        return Promise.reject(new ApiError("AT_CAPACITY", { message: "Every browser page is busy; retry later.", headers: { "retry-after": "5" } }));
      }
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = waiting.indexOf(waiter);
          if (index >= 0) waiting.splice(index, 1);
          reject(new ApiError("AT_CAPACITY", { message: "No browser page became free in time; retry later.", headers: { "retry-after": "5" } }));
        };
        const waiter: Waiter = {
          grant: () => {
            signal.removeEventListener("abort", onAbort);
            resolve();
          },
          refuse: (error) => {
            signal.removeEventListener("abort", onAbort);
            reject(error);
          },
        };
        waiting.push(waiter);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    release() {
      const next = waiting.shift();
      if (next) next.grant();
      else active--;
    },
    active: () => active,
    queued: () => waiting.length,
    close() {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.refuse(new ApiError("RENDER_UNAVAILABLE", { message: "The renderer is shutting down." }));
    },
  };
}
