/** Buys structured facts from public pages in the caller's JSON Schema, every value tied to a verbatim quote of the page text (checked by code, not by trust). */
import { checkExtractRequest, definePlugin, exampleExtractRequest, exampleExtractResult, extractEndpoint, ExtractOutputSchema, ExtractRequestSchema, modelEngine, priceExtract, refuseByPolicy, requireModel } from "tollbooth";

const id = "web.extract";
/** USD per page for the model, on top of web/read's price for the same pages. */
const modelSurchargeUsd = "0.02";

export default definePlugin({
  id,
  route: "POST /v1/web/extract",
  summary: `Facts from a public page in your JSON Schema, each value with the verbatim quote, offsets and match kind that prove it; priced per page as web/read plus a $${modelSurchargeUsd} model surcharge per page.`,
  description:
    "Reads each page as web/read does (robots.txt honoured, public IPv4 only), then one tool-less call to the operator's model fills your schema, quoting the page for every value. " +
    "Code then finds each quote in the returned text (exactly, or after folding whitespace, case, Unicode NFKC and number formatting) and checks that a text or number value is written inside it. " +
    "A value without a quote found is set to null and listed in `unsupported` (the answer says `partial: true`). Leaves marked `\"x-derived\": true` carry the quotes they rest on. " +
    "The page reaches the model only inside untrusted-content delimiters. Not charged: a page that cannot be read, a model error, or an answer where no value is supported. " +
    "Without a model on the server: 503 SKILL_UNAVAILABLE before any price. For long batches, the job skill web.extract takes the same body.",
  input: ExtractRequestSchema,
  output: ExtractOutputSchema,
  check: checkExtractRequest,
  price: (input) => priceExtract(input, modelSurchargeUsd),
  timeoutMs: 120_000,
  engine: modelEngine(id),
  admit({ prompt }, ctx) {
    refuseByPolicy(prompt);
    requireModel(ctx.llm);
  },
  errors: ["EXTRACT_SCHEMA_INVALID", "EXTRACT_NOTHING_SUPPORTED", "SKILL_UNAVAILABLE", "POLICY_REFUSED", "MODEL_ERROR", "MODEL_REFUSED", "MODEL_OUTPUT_INVALID", "URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "SOURCE_TOO_LARGE", "UNSUPPORTED_CONTENT_TYPE", "PDF_NOT_SUPPORTED_HERE", "BOT_CHALLENGE", "SELECTOR_NOT_FOUND", "SELECTOR_INVALID", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "RENDER_UNAVAILABLE", "RENDER_TIMEOUT", "BATCH_FAILED"],
  examples: [{ title: "Extract facts with their quotes", input: exampleExtractRequest, output: exampleExtractResult }],
  run: (input, ctx) => extractEndpoint(input, ctx, { skill: id, maxUsdPerPage: Number(modelSurchargeUsd) * 0.5 }),
});
