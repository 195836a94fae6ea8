/**
 * @module grounding/extract-schemas — web/extract's request and result schemas, its cross-field
 * rules (url or urls, a schema we support: named before any price) and its price (web/read's per
 * page plus the model surcharge the plugin file declares).
 */
import { type Static, Type as t } from "@sinclair/typebox";
import { AttestationErrorSchema, AttestationSchema } from "../evidence/attestation-schema.ts";
import type { CheckFailure } from "../plugin/define.ts";
import { formatDollars, type NetworkPrices, parseDollars } from "../plugin/price.ts";
import { summarizeIssues } from "../plugin/schema.ts";
import { batchEnvelope, checkSignable, priceRead } from "../web/endpoint-schemas.ts";
import { readCallerSchema, schemaLimits } from "./caller-schema.ts";
import { EvidenceSchema, UnsupportedSchema } from "./ground.ts";
import { ModelUsageSchema } from "../plugin/model-access.ts";

export const maxPromptChars = 2000;

const Url = t.String({ format: "uri", maxLength: 2048, description: "Public http(s) URL, port 80 or 443." });

export const ExtractRequestSchema = t.Object(
  {
    url: t.Optional(Url),
    urls: t.Optional(t.Array(Url, { minItems: 1, maxItems: 10, uniqueItems: true, description: "1 to 10 URLs, each extracted with the same schema." })),
    schema: t.Record(t.String(), t.Unknown(), {
      description:
        `JSON Schema of the answer: {"type": "object", "properties": {...}} at the top, at most ${schemaLimits.maxProperties} properties in all and ${schemaLimits.maxDepth} levels of objects and arrays. ` +
        "Types object, array, string, number, integer, boolean; keywords properties, required, additionalProperties (false), items, maxItems, enum, format (date, date-time, uri, email), minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum; " +
        'annotations title, description, examples, default; "x-derived": true on a leaf the model works out (a sum, a yes/no) from the quotes it names.',
    }),
    prompt: t.Optional(t.String({ minLength: 1, maxLength: maxPromptChars, description: "What to look for, in your words (at most 2,000 characters)." })),
    render: t.Optional(t.Boolean({ description: "Run the page's JavaScript in a headless browser first (priced as a rendered web/read)." })),
    selector: t.Optional(t.String({ minLength: 1, maxLength: 300, description: "CSS selector; only the first matching element is read (HTML only)." })),
    include_text: t.Optional(t.Boolean({ description: "false: return text_sha256 and characters instead of the text (default true)." })),
  },
  { additionalProperties: false, oneOf: [{ required: ["url"] }, { required: ["urls"] }] },
);
export type ExtractRequest = Static<typeof ExtractRequestSchema>;

export const ExtractResultSchema = t.Object(
  {
    ok: t.Literal(true),
    url: t.String(),
    final_url: t.String(),
    fetched_at: t.String(),
    title: t.String(),
    text: t.Optional(t.String({ description: "The page text the offsets point into (absent with include_text: false)." })),
    text_sha256: t.String({ description: "SHA-256 of text's UTF-8." }),
    characters: t.Integer({ minimum: 0, description: "Code points in text." }),
    truncated: t.Boolean(),
    data: t.Record(t.String(), t.Unknown(), { description: "Valid against the caller's schema, every value possibly null (not stated by the page, or not supported by a quote)." }),
    evidence: t.Array(EvidenceSchema, { description: "One entry per non-null leaf value of data." }),
    unsupported: t.Array(UnsupportedSchema, { description: "Values the model claimed that no quote in the text supports; they are null in data." }),
    partial: t.Boolean({ description: "true when some claimed value was unsupported." }),
    usage: ModelUsageSchema,
    warnings: t.Array(t.String()),
    content_is_untrusted: t.Literal(true),
    attestation: t.Optional(AttestationSchema),
    attestation_error: t.Optional(AttestationErrorSchema),
  },
  { additionalProperties: false },
);
export type ExtractResult = Static<typeof ExtractResultSchema>;

export const ExtractOutputSchema = t.Union([ExtractResultSchema, batchEnvelope(ExtractResultSchema)]);
export type ExtractOutput = Static<typeof ExtractOutputSchema>;

/** url or urls, and a schema we support; named before any price. */
export function checkExtractRequest(input: ExtractRequest): CheckFailure | string | undefined {
  if ((input.url === undefined) === (input.urls === undefined)) return "send exactly one of url or urls";
  const unsignable = checkSignable(input);
  if (unsignable) return unsignable;
  const schema = readCallerSchema(input.schema);
  if (!schema.ok) return { code: "EXTRACT_SCHEMA_INVALID", message: summarizeIssues(schema.issues) };
  return undefined;
}

/** web/read's price for the same pages, plus `surchargeUsd` per page for the model. */
export function priceExtract(input: ExtractRequest, surchargeUsd: string): NetworkPrices {
  const count = input.urls?.length ?? 1;
  const read = priceRead({ ...(input.urls ? { urls: input.urls } : { url: input.url ?? "" }), ...(input.render ? { render: true } : {}) });
  const surcharge = parseDollars(surchargeUsd);
  if (surcharge === undefined) throw new Error(`model surcharge must be a dollar string, got ${JSON.stringify(surchargeUsd)}`);
  // Column by column as web/read declares them: the registry checks the sum against the configured networks.
  const plus = (usd: string) => {
    const micros = parseDollars(usd);
    if (micros === undefined) throw new Error(`web/read price must be a dollar string, got ${JSON.stringify(usd)}`);
    return formatDollars(micros + count * surcharge);
  };
  return typeof read === "string" ? plus(read) : Object.fromEntries(Object.entries(read).map(([column, usd]) => [column, plus(usd)]));
}
