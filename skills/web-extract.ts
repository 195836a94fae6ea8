/** Buys web/extract as a polled job, for batches that take longer than a request should wait. */
import { checkExtractRequest, defineSkill, exampleExtractRequest, exampleExtractResult, extractEndpoint, ExtractOutputSchema, ExtractRequestSchema, modelEngine, priceExtract, refuseByPolicy, requireModel } from "tollbooth";

const skill = "web.extract";
/** USD per page for the model, on top of web/read's price for the same pages (as POST /v1/web/extract). */
const modelSurchargeUsd = "0.02";

export default defineSkill({
  skill,
  summary: `POST /v1/web/extract as a polled job (for batches of up to 10 pages): facts in your JSON Schema, each value with the verbatim quote that proves it; priced per page as web/read plus a $${modelSurchargeUsd} model surcharge per page.`,
  description:
    "The same body, work and answer as POST /v1/web/extract, run as an async job: 202, then poll GET /v1/jobs/{id}. Settled only when the job completes; a job that fails " +
    "(no page readable, a model error, no value supported by a quote) settles nothing.",
  input: ExtractRequestSchema,
  output: ExtractOutputSchema,
  check: checkExtractRequest,
  price: (input) => priceExtract(input, modelSurchargeUsd),
  async: true,
  timeoutMs: 180_000,
  engine: modelEngine(skill),
  admit({ prompt }, ctx) {
    refuseByPolicy(prompt);
    requireModel(ctx.llm);
  },
  errors: ["EXTRACT_SCHEMA_INVALID", "EXTRACT_NOTHING_SUPPORTED", "SKILL_UNAVAILABLE", "POLICY_REFUSED", "MODEL_ERROR", "MODEL_REFUSED", "MODEL_OUTPUT_INVALID", "URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "BATCH_FAILED"],
  examples: [{ input: exampleExtractRequest, output: exampleExtractResult }],
  run: (input, ctx) => extractEndpoint(input, ctx, { skill, maxUsdPerPage: Number(modelSurchargeUsd) * 0.5 }),
});
