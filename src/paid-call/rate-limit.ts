/**
 * @module paid-call/rate-limit — paid calls per minute per caller (spec job-worker §8
 * rate_limit_per_min). A fixed 60-second window that opens at a caller's first call; kept in
 * memory (a restart forgives everyone, which is harmless). Headers follow the IETF
 * RateLimit-* fields draft: Limit, Remaining, Reset (seconds) and Policy.
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
  take(caller: string): RateDecision;
}

const windowMs = 60_000;

export function createRateLimiter(options: { perMinute: number; now?: () => number }): RateLimiter {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { startedAt: number; count: number }>();
  let lastSweep = 0;

  const sweep = (at: number) => {
    if (at - lastSweep < windowMs) return;
    lastSweep = at;
    for (const [caller, w] of windows) if (at - w.startedAt >= windowMs) windows.delete(caller);
  };

  return {
    take(caller) {
      const at = now();
      sweep(at);
      let w = windows.get(caller);
      if (!w || at - w.startedAt >= windowMs) {
        w = { startedAt: at, count: 0 };
        windows.set(caller, w);
      }
      const resetSec = Math.max(1, Math.ceil((w.startedAt + windowMs - at) / 1000));
      if (w.count >= options.perMinute) return { allowed: false, limit: options.perMinute, remaining: 0, resetSec };
      w.count++;
      return { allowed: true, limit: options.perMinute, remaining: options.perMinute - w.count, resetSec };
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
