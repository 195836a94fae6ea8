/**
 * @module quotes/tiers — the fixed-price tiers of custom work (issue 17): what fits each, what it
 * costs and the limits its run works under. The spec lists no t4, so there is none.
 */
import type { AgentLimits } from "../plugin/model-access.ts";

export const tierIds = ["t1", "t2", "t3", "t5"] as const;
export type TierId = (typeof tierIds)[number];

export interface Tier {
  readonly id: TierId;
  /** The run skill sold at this tier. */
  readonly runSkill: `job.run.${TierId}`;
  readonly priceMicros: number;
  /** Sources (URLs or named sites) the goal may name. */
  readonly maxSources: number;
  /** Words the answer may be asked to have. */
  readonly maxWords: number;
  /** Lines of code the goal may carry. */
  readonly maxCodeLines: number;
  readonly comparison: boolean;
  readonly report: boolean;
  /** Model steps, fetches (tool calls) and model dollars of one run. */
  readonly limits: AgentLimits;
}

export const tiers: readonly Tier[] = [
  { id: "t1", runSkill: "job.run.t1", priceMicros: 500_000, maxSources: 1, maxWords: 800, maxCodeLines: 40, comparison: false, report: false, limits: { maxSteps: 8, maxToolCalls: 3, maxUsd: 0.15 } },
  { id: "t2", runSkill: "job.run.t2", priceMicros: 1_000_000, maxSources: 3, maxWords: 1_500, maxCodeLines: 300, comparison: false, report: false, limits: { maxSteps: 12, maxToolCalls: 6, maxUsd: 0.3 } },
  { id: "t3", runSkill: "job.run.t3", priceMicros: 2_000_000, maxSources: 6, maxWords: 3_000, maxCodeLines: 600, comparison: true, report: false, limits: { maxSteps: 16, maxToolCalls: 10, maxUsd: 0.6 } },
  { id: "t5", runSkill: "job.run.t5", priceMicros: 5_000_000, maxSources: 15, maxWords: 6_000, maxCodeLines: 1_500, comparison: true, report: true, limits: { maxSteps: 24, maxToolCalls: 20, maxUsd: 1.5 } },
];

/** Every tier runs under the same timeout. */
export const runTimeoutMs = 180_000;
/** How long an accepted quote may be run. */
export const quoteLifetimeMs = 3_600_000;
/** Asking the same goal and budget again within this window returns the same quote. */
export const repeatWindowMs = 24 * 3_600_000;
/** How long quotes are kept for the operator (`tollbooth quotes`) before the sweep deletes them. */
export const quoteRetentionMs = 7 * 24 * 3_600_000;

export const largestTier: Tier = tiers[tiers.length - 1]!;

export function tierById(id: TierId): Tier {
  return tiers.find((t) => t.id === id)!;
}

export function isTierId(value: unknown): value is TierId {
  return typeof value === "string" && (tierIds as readonly string[]).includes(value);
}

/** The wire shape of a tier's limits (quote output, run result). */
export function limitsView(tier: Tier) {
  return { max_steps: tier.limits.maxSteps, max_fetches: tier.limits.maxToolCalls, max_model_usd: tier.limits.maxUsd, timeout_sec: runTimeoutMs / 1000 };
}

/** Dollar amount with at least two decimals, as the spec writes prices ("0.50", "5.00"). */
export function priceText(micros: number): string {
  const text = (micros / 1_000_000).toFixed(6).replace(/0+$/, "");
  const [whole, fraction = ""] = text.split(".");
  return `${whole}.${fraction.padEnd(2, "0")}`;
}
