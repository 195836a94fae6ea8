/**
 * @module paid-call/call-deps — what a paid call asks of the server (PaidCallDeps), built here from the
 * server's parts: whether the manager is open for work, the caller's rate limit, the modules' input
 * checks, the plugin's context. Every function the call runs is defined in this room or below it, so
 * a paid call never calls back into the rooms that started it (docs/layout.md, "Walks").
 */
import type { Logger } from "../log.ts";
import type { ContextFor } from "../plugin/call-context.ts";
import type { SettingsStore } from "../store/settings.ts";
import type { PaidCallDeps } from "./call.ts";
import type { Payments } from "./payments.ts";
import type { RateLimiter, RateLimiterOptions } from "./rate-limit.ts";

export interface PaidCallParts {
  readonly payments: Payments;
  readonly log: Logger;
  readonly store: { readonly settings: SettingsStore; rateLimiter(options: RateLimiterOptions): RateLimiter };
  /** Paid calls a caller may make in a minute: one limit shared by every paid operation, web reads and job submissions alike. */
  readonly perMinute: number;
  readonly now: () => Date;
  /** The modules' checks of a paid call's input beyond its schema: read per call, so the server fills the list once the modules serve. */
  readonly inputChecks: readonly ((input: unknown) => void)[];
  readonly contextFor: ContextFor;
}

export function paidCallDeps({ payments, log, store, perMinute, now, inputChecks, contextFor }: PaidCallParts): PaidCallDeps {
  const limiter = store.rateLimiter({ perMinute, now: () => now().getTime() });
  return {
    payments,
    log,
    contextFor,
    rateLimit: (caller) => limiter.take(caller),
    // Each module's checks of a paid call's input beyond its schema (400 before any payment).
    checkInput: (_entry, input) => {
      for (const check of inputChecks) check(input);
    },
    isOpenForWork: async () => {
      const m = await store.settings.manager();
      return { open: m.openForWork, reason: m.pauseReason };
    },
  };
}
