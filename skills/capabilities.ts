/** Buys the capabilities probe as a paid skill: open_for_work, the job price and the skill ids (no LLM). */
import { defineSkill, t } from "tollbooth";

export default defineSkill({
  skill: "capabilities",
  summary: "Capabilities probe: whether the service is open for work, the highest job price and the skill ids (no LLM).",
  input: t.Object({}, { additionalProperties: false }),
  output: t.Object({ ok: t.Boolean(), open_for_work: t.Boolean(), price_job: t.String(), skills: t.Array(t.String()) }),
  price: "0.002",
  async: false,
  timeoutMs: 5_000,
  examples: [{ input: {}, output: { ok: true, open_for_work: true, price_job: "0.01", skills: ["capabilities", "host.report"] } }],
  async run(_input, ctx) {
    const skills = ctx.skills();
    // spec §4.1 rule 1: the job price is 0.25 beside job.run.* at 0.50-5.00, which are bought only with a quote.
    const price = Math.max(...skills.filter((s) => !s.id.startsWith("job.run.")).map((s) => Number(s.priceUsd)));
    return { ok: true, open_for_work: ctx.manager().openForWork, price_job: String(price), skills: skills.map((s) => s.id) };
  },
});
