/**
 * @module web/endpoint-schemas — request and result schemas of the web evidence endpoints
 * (spec web-evidence §4.1–§4.3), their cross-field rules, and their prices (§4.4).
 */
import { type Static, type TSchema, Type as t } from "@sinclair/typebox";
import type { CheckFailure } from "../plugin/check-failure.ts";
import type { NetworkPrices } from "../plugin/price.ts";
import { ApiError } from "../errors.ts";
import { ComparisonSchema } from "./compare/compare-schema.ts";
import { AttestationErrorSchema, AttestationSchema } from "../evidence/attestation-schema.ts";
import { checkIgnoreSelectors, MAX_IGNORE_SELECTORS, MAX_SELECTOR_CHARS, MAX_SELECTOR_STEPS } from "./filters/ignore-selectors.ts";
import { compileRequestPatterns, MAX_PATTERN_CHARS, MAX_PATTERNS, PATTERN_SYNTAX } from "./filters/line-patterns.ts";
import { PdfExtractionSchema } from "./pdf/pdf-schema.ts";
import { CompactResultSchema, InlineErrorSchema, ReadResultSchema } from "./read-result.ts";
import { makeWellFormed, sha256Hex } from "./text/text-output.ts";

const Url = t.String({ format: "uri", maxLength: 2048, description: "Public http(s) URL, port 80 or 443." });
const MaxChars = t.Integer({ minimum: 1000, maximum: 60000, default: 20000, description: "Characters per URL, for text and markdown separately; keep it identical between comparisons." });
const Selector = t.String({
  minLength: 1,
  maxLength: 300,
  description: `CSS selector; only the first matching element is extracted (HTML only). Matching is capped at ${MAX_SELECTOR_STEPS} steps a page (else 422 CONTENT_TOO_COMPLEX naming the selector).`,
});

/** How each page is read (web/read's options, also web/search's `read`). */
export const ReadOptionFields = {
  format: t.Optional(t.Union([t.Literal("text"), t.Literal("markdown")], { description: "markdown adds markdown and markdown_sha256; text is always returned." })),
  selector: t.Optional(Selector),
  render: t.Optional(t.Boolean({ description: "Run the page's JavaScript in a headless browser first (images, media and fonts are not loaded)." })),
  max_chars: t.Optional(MaxChars),
};

export const ReadRequestSchema = t.Object(
  {
    url: t.Optional(Url),
    urls: t.Optional(t.Array(Url, { minItems: 1, maxItems: 10, uniqueItems: true, description: "1 to 10 URLs read as a batch." })),
    ...ReadOptionFields,
  },
  { additionalProperties: false, oneOf: [{ required: ["url"] }, { required: ["urls"] }] },
);
export type ReadRequest = Static<typeof ReadRequestSchema>;

const ChangesItem = t.Union([
  Url,
  t.Object(
    {
      url: Url,
      previous_text: t.Optional(t.String({ maxLength: 60000 })),
      previous_sha256: t.Optional(t.String({ pattern: "^[a-fA-F0-9]{64}$" })),
    },
    { additionalProperties: false },
  ),
]);

export const ChangesRequestSchema = t.Object(
  {
    url: t.Optional(Url),
    items: t.Optional(t.Array(ChangesItem, { minItems: 1, maxItems: 10, description: "A URL string (first snapshot) or {url, previous_text?, previous_sha256?}." })),
    previous_sha256: t.Optional(t.String({ pattern: "^[a-fA-F0-9]{64}$", description: "The prior text_sha256: a compact changed/unchanged check." })),
    previous_text: t.Optional(t.String({ maxLength: 60000, description: "The exact prior text: yields added and removed lines." })),
    max_chars: t.Optional(MaxChars),
    selector: t.Optional(Selector),
    diff_summary: t.Optional(t.Boolean({ description: "Adds comparison.summary, one deterministic sentence." })),
    compare: t.Optional(
      t.Union([t.Literal("text"), t.Literal("markdown")], {
        description: "What is compared and returned: the text (default) or the Markdown (then markdown is returned instead of text, and the baseline is the markdown).",
      }),
    ),
    ignore_selectors: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: MAX_SELECTOR_CHARS }), {
        maxItems: MAX_IGNORE_SELECTORS,
        description:
          "CSS selectors (css-select) whose elements are removed from the page before extraction, e.g. \".ad, .timestamp, #visitor-count\" (HTML only). " +
          `Matching is capped at ${MAX_SELECTOR_STEPS} steps a page, selector and ignore_selectors together (else 422 CONTENT_TOO_COMPLEX naming the selector). ` +
          "They cannot be applied to previous_text: keep as baseline the text of an answer with the same ignore_selectors.",
      }),
    ),
    ignore_patterns: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: MAX_PATTERN_CHARS }), {
        maxItems: MAX_PATTERNS,
        description:
          `Lines matching any of these are removed from both sides before comparing (timestamps, counters, session ids), e.g. "^Updated \\d+ minutes ago$". ${PATTERN_SYNTAX}`,
      }),
    ),
    trigger_patterns: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: MAX_PATTERN_CHARS }), {
        maxItems: MAX_PATTERNS,
        description:
          `changed is true only when a line matching one of these is added or removed, e.g. "(?i)price|in stock"; needs previous_text (or no baseline). ${PATTERN_SYNTAX}`,
      }),
    ),
  },
  { additionalProperties: false, oneOf: [{ required: ["url"] }, { required: ["items"] }] },
);
export type ChangesRequest = Static<typeof ChangesRequestSchema>;
export type ChangesItem = Static<typeof ChangesItem>;

export const PdfRequestSchema = t.Object({ url: Url }, { additionalProperties: false });
export type PdfRequest = Static<typeof PdfRequestSchema>;

export const ChangesResultSchema = t.Composite([
  t.Omit(ReadResultSchema, ["text"]),
  t.Object({ text: t.Optional(t.String()), comparison: ComparisonSchema }),
]);

export const PdfResultSchema = t.Composite([t.Object({ ok: t.Literal(true), url: t.String(), attestation: t.Optional(AttestationSchema), attestation_error: t.Optional(AttestationErrorSchema) }), PdfExtractionSchema]);

export function batchEnvelope(item: TSchema) {
  return t.Object({
    ok: t.Literal(true),
    batch: t.Literal(true),
    count: t.Integer(),
    succeeded: t.Integer(),
    failed: t.Integer(),
    charged_urls: t.Integer(),
    results: t.Array(t.Union([item, InlineErrorSchema])),
  });
}

export const ReadOutputSchema = t.Union([ReadResultSchema, batchEnvelope(ReadResultSchema)]);
export const FetchOutputSchema = t.Union([CompactResultSchema, batchEnvelope(CompactResultSchema)]);
export const ChangesOutputSchema = t.Union([ChangesResultSchema, batchEnvelope(ChangesResultSchema)]);

/** Cross-field rules of web/read, web/fetch and web/markdown. */
/**
 * A single result's url and the selector are signed as sent (evidence/statement.ts), and RFC 8785
 * JSON has no spelling for a lone surrogate: such input is refused before any price. A batch's URLs
 * are not checked here: one that cannot be read (or signed) is that item's inline error (fetch/target-guard.ts).
 */
export function checkSignable(input: { readonly url?: string | undefined; readonly selector?: string | undefined }): string | undefined {
  for (const field of ["url", "selector"] as const) {
    const value = input[field];
    if (value !== undefined && !value.isWellFormed()) return `${field} holds a lone surrogate (not Unicode text), so its result could not be signed`;
  }
  return undefined;
}

export function checkReadRequest(input: ReadRequest): string | undefined {
  if ((input.url === undefined) === (input.urls === undefined)) return "send exactly one of url or urls";
  return checkSignable(input);
}

export function checkPdfRequest(input: PdfRequest): string | undefined {
  return checkSignable(input);
}

/** Cross-field rules of web/changes; a baseline whose text and hash disagree is refused before any work. */
export function checkChangesRequest(input: ChangesRequest): CheckFailure | string | undefined {
  if ((input.url === undefined) === (input.items === undefined)) return "send exactly one of url or items";
  if (input.items && (input.previous_text !== undefined || input.previous_sha256 !== undefined)) {
    return "with items, put previous_text / previous_sha256 inside each item";
  }
  const baselines = input.items
    ? input.items.map((item, index) => ({ where: `items[${index}]`, ...(typeof item === "string" ? {} : item) }))
    : [{ where: "body", previous_text: input.previous_text, previous_sha256: input.previous_sha256 }];
  for (const b of baselines) {
    if (b.previous_text !== undefined && b.previous_sha256 !== undefined && sha256Hex(makeWellFormed(b.previous_text)) !== b.previous_sha256.toLowerCase()) {
      return { code: "BASELINE_MISMATCH", message: `${b.where}: previous_text does not hash to previous_sha256 (send both from the same snapshot, or only one).` };
    }
  }
  const unsignable = checkSignable(input);
  if (unsignable) return unsignable;
  const urls = input.items?.map((i) => (typeof i === "string" ? i : i.url));
  if (urls && new Set(urls).size !== urls.length) return "items must name each URL once";
  if (input.trigger_patterns?.length) {
    const hashOnly = baselines.find((b) => b.previous_sha256 !== undefined && b.previous_text === undefined);
    if (hashOnly) return `${hashOnly.where}: trigger_patterns need previous_text (a hash cannot tell which lines were added or removed)`;
  }
  try {
    checkIgnoreSelectors(input.ignore_selectors);
    compileRequestPatterns(input.ignore_patterns, input.trigger_patterns);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}

/** spec §4.4 prices, in USD per price column (the built-in families' columns; a loaded family falls back on one). */
export const perUrl = {
  single: { base: 0.005, algorand: 0.01 },
  batch: { base: 0.003, algorand: 0.006 },
  render: { base: 0.01, algorand: 0.02 },
} as const;

function total(count: number, rate: Readonly<Record<string, number>>): NetworkPrices {
  // integer micro-dollars so 10 × 0.003 is exactly 0.03
  const usd = (v: number) => String((Math.round(v * 1_000_000) * count) / 1_000_000);
  return Object.fromEntries(Object.entries(rate).map(([column, v]) => [column, usd(v)]));
}

export function priceRead(input: ReadRequest): NetworkPrices {
  const count = input.urls?.length ?? 1;
  if (input.render) return total(count, perUrl.render);
  return total(count, count >= 2 ? perUrl.batch : perUrl.single);
}

export function priceChanges(input: ChangesRequest): NetworkPrices {
  const count = input.items?.length ?? 1;
  return total(count, count >= 2 ? perUrl.batch : perUrl.single);
}

export const pdfPrice: NetworkPrices = { base: "0.01", algorand: "0.01" };
