/**
 * @module paid-call/rate-limit — paid calls per minute per caller (spec job-worker §8
 * rate_limit_per_min). A fixed 60-second window that opens at a caller's first call. One
 * instance keeps the windows in memory (a restart forgives everyone, which is harmless); instances
 * sharing PostgreSQL count in one table (rate-limit-pg.ts) so the limit holds for the cluster.
 * Headers follow the IETF RateLimit-* fields draft: Limit, Remaining, Reset (seconds) and Policy.
 */

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets (at least 1). */
  readonly resetSec: number;
}

export interface RateLimiter {
  /** Counts one call for `caller` and says whether it may proceed. A refused call is not counted. */
  take(caller: string): Promise<RateDecision>;
}

export interface RateLimiterOptions {
  readonly perMinute: number;
  readonly now?: () => number;
}

export const rateWindowMs = 60_000;
const windowMs = rateWindowMs;

/** The decision for a window that opened at `startedAt` and now holds `count` calls (this one included when allowed). */
export function decisionOf(perMinute: number, startedAt: number, count: number, allowed: boolean, at: number): RateDecision {
  const resetSec = Math.max(1, Math.ceil((startedAt + windowMs - at) / 1000));
  return allowed ? { allowed, limit: perMinute, remaining: Math.max(0, perMinute - count), resetSec } : { allowed, limit: perMinute, remaining: 0, resetSec };
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { startedAt: number; count: number }>();
  let lastSweep = 0;

  const sweep = (at: number) => {
    if (at - lastSweep < windowMs) return;
    lastSweep = at;
    for (const [caller, w] of windows) if (at - w.startedAt >= windowMs) windows.delete(caller);
  };

  return {
    async take(caller) {
      const at = now();
      sweep(at);
      let w = windows.get(caller);
      if (!w || at - w.startedAt >= windowMs) {
        w = { startedAt: at, count: 0 };
        windows.set(caller, w);
      }
      if (w.count >= options.perMinute) return decisionOf(options.perMinute, w.startedAt, w.count, false, at);
      w.count++;
      return decisionOf(options.perMinute, w.startedAt, w.count, true, at);
    },
  };
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSec),
    "RateLimit-Policy": `${decision.limit};w=60`,
    ...(decision.allowed ? {} : { "Retry-After": String(decision.resetSec) }),
  };
}
