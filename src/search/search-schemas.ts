/**
 * @module search/search-schemas — web/search's request and result schemas and its price: a search,
 * plus web/read's batch price for each result it may read (`read`), quoted for `limit` results.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import { priceByUnits } from "../paid-call/delivery.ts";
import { formatDollars, type NetworkPrices, parseDollars } from "../plugin/price.ts";
import { perUrl, ReadOptionFields } from "../web/endpoint-schemas.ts";
import { InlineErrorSchema, ReadResultSchema } from "../web/read-result.ts";

export const MAX_QUERY_CHARS = 400;
export const MAX_RESULTS = 20;
export const DEFAULT_RESULTS = 5;

const ReadOptions = t.Object(ReadOptionFields, { additionalProperties: false, description: "How each result is read: web/read's format, max_chars, selector and render." });

export const SearchRequestSchema = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: MAX_QUERY_CHARS, pattern: "\\S", description: `What to search for (at most ${MAX_QUERY_CHARS} characters).` }),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_RESULTS, default: DEFAULT_RESULTS, description: `Results wanted, 1 to ${MAX_RESULTS} (default ${DEFAULT_RESULTS}); the engine may find fewer.` })),
    site: t.Optional(
      t.String({
        maxLength: 253,
        pattern: "^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$",
        description: "Only results from this host name, e.g. docs.python.org.",
      }),
    ),
    lang: t.Optional(t.String({ pattern: "^[a-z]{2}(-[A-Za-z]{2})?$", description: "Language of the results, e.g. en or de-CH." })),
    time_range: t.Optional(t.Union([t.Literal("day"), t.Literal("week"), t.Literal("month"), t.Literal("year")], { description: "Only results from the last day, week, month or year (where the engine knows dates)." })),
    read: t.Optional(
      t.Union([t.Boolean(), ReadOptions], {
        description: "true (or web/read's options) also reads each result: its signed read result, or an inline error. Priced per result up to limit.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SearchRequest = Static<typeof SearchRequestSchema>;

export const SearchResultSchema = t.Object(
  {
    rank: t.Integer({ minimum: 1, description: "1 for the first result." }),
    url: t.String({ description: "The result's URL as the engine gave it (untrusted: it was read only after the SSRF guard and robots.txt allowed it)." }),
    title: t.String(),
    snippet: t.String({ description: "The engine's excerpt (untrusted text)." }),
    engines: t.Array(t.String(), { description: "The engines that found it." }),
    read: t.Optional(t.Union([ReadResultSchema, InlineErrorSchema], { description: "With read: the page's signed read result, or why it could not be read." })),
  },
  { additionalProperties: false },
);
export type SearchResult = Static<typeof SearchResultSchema>;

export const SearchOutputSchema = t.Object(
  {
    ok: t.Literal(true),
    query: t.String(),
    engine: t.String({ description: "The engine this server asks (searx, brave)." }),
    count: t.Integer({ minimum: 1 }),
    results: t.Array(SearchResultSchema),
    reads: t.Optional(t.Object({ succeeded: t.Integer({ minimum: 0 }), failed: t.Integer({ minimum: 0 }) }, { additionalProperties: false })),
    content_is_untrusted: t.Literal(true),
  },
  { additionalProperties: false },
);
export type SearchOutput = Static<typeof SearchOutputSchema>;

/** The search itself, per price column. */
const searchPrice = { base: "0.005", algorand: "0.01" } as const;

/** A read of one result, per price column: web/read's batch price, or its rendered one. */
function readPrice(input: SearchRequest): NetworkPrices {
  const rendered = typeof input.read === "object" && input.read.render === true;
  const rate: Readonly<Record<string, number>> = rendered ? perUrl.render : perUrl.batch;
  return Object.fromEntries(Object.entries(rate).map(([column, usd]) => [column, formatDollars(parseDollars(String(usd)) ?? 0)]));
}

/** The quote (the limit): the search, plus (with read) one batch read — or rendered read — for each of `limit` results. */
export function priceSearch(input: SearchRequest): NetworkPrices {
  return priceByUnits(searchPrice, readPrice(input), input.read ? (input.limit ?? DEFAULT_RESULTS) : 0);
}

/** What a search delivered: the search, plus a read for each result read successfully. */
export function priceSearchDelivered(input: SearchRequest, output: SearchOutput): NetworkPrices {
  return priceByUnits(searchPrice, readPrice(input), output.reads?.succeeded ?? 0);
}
