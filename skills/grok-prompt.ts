/** Buys one bounded agent run on the operator's model: a prompt in, an answer out, with web_read and pdf_read as tools. */
import { ApiError, defineSkill, ModelUsageSchema, modelEngine, refuseByPolicy, requireModel, t } from "tollbooth";

const skill = "grok.prompt";
const priceUsd = 0.25;
const timeoutMs = 180_000;

export default defineSkill({
  skill,
  summary: "Agent output for one prompt on the operator's language model, with web_read and pdf_read as tools (bounded steps, tool calls and spend).",
  description:
    "Runs a bounded agent: at most 8 model steps, 12 tool calls and about 30 % of the price in model spend (operator settings may lower them). " +
    "Pages it reads are treated as untrusted data: the model that can call tools never sees their text, and URLs in the answer must come from the pages read or the prompt. " +
    "With json_only the answer is one JSON document (one repair call, else the job fails and nothing is settled). " +
    "When a budget ends the work, the answer is still written and `partial` is true. Refused before any 402: prompts the policy gate blocks (400 POLICY_REFUSED) and servers without a model (503 SKILL_UNAVAILABLE).",
  input: t.Object(
    {
      prompt: t.String({ minLength: 1, description: "What to do (at most max_prompt_chars characters)." }),
      json_only: t.Optional(t.Boolean({ description: "The answer is one JSON document; the job result is a JSON-encoded string." })),
    },
    { additionalProperties: false },
  ),
  output: t.Object(
    {
      ok: t.Literal(true),
      skill: t.Literal(skill),
      answer: t.Unknown({ description: "The answer text; with json_only, the parsed JSON document." }),
      partial: t.Boolean({ description: "true when a budget ended the work before the model finished on its own." }),
      partial_reason: t.Optional(t.String()),
      sources: t.Array(t.Object({ url: t.String(), title: t.Optional(t.String()) }, { additionalProperties: false })),
      removed_urls: t.Optional(t.Integer({ minimum: 1, description: "URLs the model wrote that no page read or the prompt contained; removed from the answer." })),
      usage: ModelUsageSchema,
      engine: t.Literal("model"),
    },
    { additionalProperties: false },
  ),
  price: String(priceUsd),
  async: true,
  // A text-only A2A message is a prompt (unless a skill that takes only some texts takes it first).
  freeText: { input: (text) => ({ prompt: text }), anyText: true, takes: "any text, as the prompt" },
  timeoutMs,
  errors: ["POLICY_REFUSED", "SKILL_UNAVAILABLE", "PROMPT_TOO_LONG", "MODEL_ERROR", "MODEL_REFUSED", "MODEL_OUTPUT_INVALID"],
  examples: [
    {
      input: { prompt: "Read https://example.com/ and say in one sentence what the page is for." },
      output: {
        ok: true,
        skill,
        answer: "https://example.com/ is a placeholder domain reserved for use in documentation examples.",
        partial: false,
        sources: [{ url: "https://example.com/", title: "Example Domain" }],
        usage: { model: "grok-4-fast", steps: 2, tool_calls: 1, input_tokens: 1850, output_tokens: 96, cost_usd: 0.00042 },
        engine: "model",
      },
    },
  ],
  engine: modelEngine(skill),
  admit({ prompt }, ctx) {
    refuseByPolicy(prompt);
    requireModel(ctx.llm);
  },
  async run({ prompt, json_only }, ctx) {
    const result = await ctx.llm.runAgent({
      skill,
      prompt,
      tools: ["web_read", "pdf_read"],
      jsonOnly: json_only === true,
      limits: { maxSteps: 8, maxToolCalls: 12, maxUsd: priceUsd * 0.3, maxWallMs: timeoutMs - 20_000 },
      signal: ctx.signal,
    });
    let answer: unknown = result.answer;
    if (json_only === true) {
      try {
        answer = JSON.parse(result.answer);
      } catch {
        // Unreachable when the loop's JSON check passed; fail rather than sell a broken document.
        throw new ApiError("MODEL_OUTPUT_INVALID");
      }
    }
    return {
      ok: true as const,
      skill,
      answer,
      partial: result.partial,
      ...(result.partialReason ? { partial_reason: result.partialReason } : {}),
      sources: result.sources.map((s) => ({ url: s.url, ...(s.title ? { title: s.title } : {}) })),
      ...(result.removedUrls && result.removedUrls.length > 0 ? { removed_urls: result.removedUrls.length } : {}),
      usage: result.usage,
      engine: "model" as const,
    };
  },
});
