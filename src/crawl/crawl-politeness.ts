/**
 * @module crawl/crawl-politeness — how gently this instance crawls one host: at most `perHost`
 * fetches in flight (web/host-slots.ts), a pause between fetches, counted from each fetch's start
 * and again from its end (the operator's delay, or robots.txt's Crawl-delay when longer), and the wait before a 429/503 page is tried again
 * (its Retry-After, else an exponential backoff).
 */
import { type HostSlots, createHostSlots } from "../web/host-slots.ts";

export interface Politeness {
  /** Waits for a slot on the URL's host and for its pause; the function returned frees the slot. */
  enter(url: string, delayMs: number, signal: AbortSignal): Promise<() => void>;
  /** Keeps the host quiet until `untilMs` (a 429/503 answer). */
  holdHost(url: string, untilMs: number): void;
}

const hostOf = (url: string) => new URL(url).host.toLowerCase();

export function createPoliteness(perHost: number, now: () => number = Date.now): Politeness {
  const slots: HostSlots = createHostSlots(perHost);
  const nextAt = new Map<string, number>();
  return {
    async enter(url, delayMs, signal) {
      const free = await slots.take(url);
      const host = hostOf(url);
      try {
        for (;;) {
          const wait = (nextAt.get(host) ?? 0) - now();
          if (wait <= 0) break;
          await sleep(wait, signal);
        }
        if (delayMs <= 0) return free;
        nextAt.set(host, now() + delayMs);
        // The pause runs again from the fetch's end: a fetch slowed on its way out (the guard, a
        // slow answer) must not bring the next one closer than the delay to it at the site.
        return () => {
          nextAt.set(host, Math.max(nextAt.get(host) ?? 0, now() + delayMs));
          free();
        };
      } catch (error) {
        free();
        throw error;
      }
    },
    holdHost(url, untilMs) {
      const host = hostOf(url);
      nextAt.set(host, Math.max(nextAt.get(host) ?? 0, untilMs));
    },
  };
}

const MAX_BACKOFF_MS = 60_000;

/** When a page answered 429/503 may be asked again: its Retry-After (seconds or an HTTP date), else 2^attempts s; at most a minute. */
export function retryDelayMs(retryAfter: unknown, attempts: number, nowMs: number): number {
  let ms = 1000 * 2 ** Math.max(0, attempts - 1);
  if (typeof retryAfter === "string") {
    const seconds = Number(retryAfter.trim());
    const date = Date.parse(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) ms = seconds * 1000;
    else if (Number.isFinite(date)) ms = date - nowMs;
  }
  return Math.min(MAX_BACKOFF_MS, Math.max(0, ms));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
