/** Buys a fixed-price decision on custom work: accept (with a job.run.* skill, price and quote_id), map_to_existing or reject, with one counter. */
import { admitQuote, defineSkill, QuoteOutputSchema, QuoteRequestSchema, quoteGoal } from "tollbooth";

export default defineSkill({
  skill: "job.quote",
  summary: "Quotes custom work: accept at a fixed tier price with a quote_id, map to an existing skill, or reject, with one counter.",
  description:
    "Describe the goal and your budget. `accept` names a `job.run.*` skill and its price: buy it with `{quote_id}` within an hour. `map_to_existing` names the skill that already does the job (and the body to send). `reject` says why (unbounded, too large, budget below price, no model) and carries one counter; there is no negotiation. Asking the same goal and budget again within 24 h returns the same quote.",
  input: QuoteRequestSchema,
  output: QuoteOutputSchema,
  price: "0.05",
  async: false,
  timeoutMs: 60_000,
  errors: ["POLICY_REFUSED", "PROMPT_TOO_LONG"],
  examples: [
    {
      title: "A comparison of three pages",
      input: { goal: "Compare the pricing of https://example.com/pricing, https://example.org/pricing and https://example.net/pricing in a table.", budget_usdc: 3 },
      output: {
        ok: true,
        skill: "job.quote",
        decision: "accept",
        run_skill: "job.run.t3",
        price: "2.00",
        quote_id: "quote_3f1c9a7be2d04c5e8a6b1d2e3f405162",
        expires_at: "2026-01-01T13:00:00.000Z",
        scope: "the goal as written",
        limits: { max_steps: 16, max_fetches: 10, max_model_usd: 0.6, timeout_sec: 180 },
        counter: null,
        reason: "fits_tier",
        note: "Fits t3: 3 sources, a comparison.",
        next_request: null,
      },
    },
  ],
  // Decided by rules; a configured model reviews accepted quotes (it may only raise the tier).
  engine: (llm) => ({ available: true, engine: llm.configured ? "rules+model" : "rules", ...(llm.model("job.quote") ? { model: llm.model("job.quote")! } : {}) }),
  admit: (input) => admitQuote(input),
  run: (input, ctx) => quoteGoal(input, ctx),
});
