/**
 * @module quotes/quote-access — what a skill sees of the quote store (`ctx.quotes`): one call's
 * view, bound to the payer of that call. New quotes are bound to it, and only it may run them.
 * The payer is the verified one when the call is paid; before the 402 it is the one the payment
 * header names (verified right after), so a wrong payer is refused before anything is charged.
 */
import { ApiError } from "../errors.ts";
import type { QuoteDecision } from "./decide.ts";
import { type ClaimOutcome, payerKey, type QuoteRow, type QuoteStore } from "./quote-store.ts";

export interface QuoteAccess {
  /** The answer to a goal and budget: the same quote when asked again within 24 h, else `decide()`'s, stored. */
  ask(goal: string, goalHash: string, budgetMicros: number, decide: () => Promise<QuoteDecision>): Promise<QuoteRow>;
  get(id: string): Promise<QuoteRow | undefined>;
  /** Throws the ApiError that refuses running quote `id` with `runSkill` (404, 400, 410, 409, 403). */
  checkRunnable(id: string, runSkill: string): Promise<void>;
  /** Takes the quote for `jobId`; throws like `checkRunnable` when another run got it first. */
  claim(id: string, runSkill: string, jobId: string): Promise<void>;
  /** Gives back a quote this call claimed (its run failed and charged nothing). */
  release(id: string): Promise<boolean>;
}

function refusalError(outcome: Extract<ClaimOutcome, { kind: "refused" }>, runSkill: string): ApiError {
  const q = outcome.quote;
  switch (outcome.why) {
    case "missing":
    case "not_accepted":
      return new ApiError("QUOTE_NOT_FOUND");
    case "wrong_tier":
      return new ApiError("QUOTE_WRONG_TIER", { message: `This quote is run with ${q?.runSkill}, not ${runSkill}; nothing was charged.`, details: { run_skill: q?.runSkill } });
    case "expired":
      return new ApiError("QUOTE_EXPIRED", { message: `This quote expired at ${q?.expiresAt}; ask job.quote again. Nothing was charged.` });
    case "used":
      return new ApiError("QUOTE_USED");
    case "wrong_payer":
      return new ApiError("QUOTE_PAYER_MISMATCH");
  }
}

export function createQuoteAccess(store: QuoteStore, call: { readonly payer: string | undefined; readonly requestId: string; readonly now: () => Date }): QuoteAccess {
  const payer = payerKey(call.payer);
  return {
    async ask(goal, goalHash, budgetMicros, decide) {
      const now = call.now();
      const earlier = await store.findRepeat(goalHash, budgetMicros, payer, now);
      if (earlier) {
        const stale = earlier.decision === "accept" && (earlier.usedAt !== null || Date.parse(earlier.expiresAt) <= now.getTime());
        // Re-asking is not haggling: the same terms, under a fresh id once the old one was run or expired.
        return stale ? store.insert(decisionOf(earlier), { goal, goalHash, budgetMicros, payer }, now) : earlier;
      }
      const decision = await decide();
      return store.insert(decision, { goal, goalHash, budgetMicros, payer }, call.now());
    },
    get: (id) => store.get(id),
    async checkRunnable(id, runSkill) {
      const refused = await store.refusal(id, runSkill, payer, call.now());
      if (refused && refused.kind === "refused") throw refusalError(refused, runSkill);
    },
    async claim(id, runSkill, jobId) {
      const outcome = await store.claim(id, runSkill, payer, jobId, call.requestId, call.now());
      if (outcome.kind === "refused") throw refusalError(outcome, runSkill);
    },
    release: (id) => store.release(id, call.requestId),
  };
}

function decisionOf(row: QuoteRow): QuoteDecision {
  return {
    decision: row.decision,
    reason: row.reason,
    note: row.note,
    tier: row.tier,
    runSkill: row.runSkill,
    priceMicros: row.priceMicros,
    scope: row.scope,
    allowedHosts: row.allowedHosts,
    counter: row.counter,
    nextRequest: row.nextRequest,
  };
}
