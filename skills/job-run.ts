/** Buys the run of an accepted quote at its tier: the stored goal, planned first, fetching only the hosts it named, under the tier's limits. */
import { admitRun, defineSkill, modelEngine, priceText, RunOutputSchema, RunRequestSchema, runQuote, runTimeoutMs, tiers } from "tollbooth";

export default tiers.map((tier) =>
  defineSkill({
    skill: tier.runSkill,
    summary: `Runs an accepted ${tier.id} quote (job.quote) once: at most ${tier.maxSources} sources, ${tier.limits.maxSteps} steps, ${tier.limits.maxToolCalls} fetches.`,
    description: `Send \`{quote_id}\` from a job.quote answer whose run_skill is ${tier.runSkill}. Refused before any payment when the quote is unknown (404), for another tier (400), expired (410), already run (409) or bought by another payer (403), or when no model is configured (503). The result says \`partial\` when a limit ended the work.`,
    input: RunRequestSchema,
    output: RunOutputSchema,
    price: priceText(tier.priceMicros),
    async: true,
    timeoutMs: runTimeoutMs,
    errors: ["QUOTE_NOT_FOUND", "QUOTE_WRONG_TIER", "QUOTE_EXPIRED", "QUOTE_USED", "QUOTE_PAYER_MISMATCH", "SKILL_UNAVAILABLE"],
    examples: [{ input: { quote_id: "quote_3f1c9a7be2d04c5e8a6b1d2e3f405162" } }],
    engine: modelEngine(tier.runSkill),
    admit: (input, ctx) => admitRun(tier, input, ctx),
    claim: async (input, ctx, jobId) => {
      await ctx.quotes.claim(input.quote_id, tier.runSkill, jobId);
      return () => ctx.quotes.release(input.quote_id);
    },
    run: (input, ctx) => runQuote(tier, input, ctx),
  }),
);
