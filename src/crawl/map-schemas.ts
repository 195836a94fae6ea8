/**
 * @module crawl/map-schemas — web/map's request and result schemas, its cross-field rules (the
 * include/exclude patterns compile as RE2) and its price.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import { ApiError } from "../errors.ts";
import type { CheckFailure } from "../plugin/check-failure.ts";
import type { NetworkPrices } from "../plugin/price.ts";
import { compileLinePatterns, MAX_PATTERN_CHARS, MAX_PATTERNS, type LinePattern } from "../web/filters/line-patterns.ts";

export const MAX_MAP_URLS = 100_000;
export const DEFAULT_MAP_URLS = 5_000;

const PathPatterns = (what: string) =>
  t.Optional(
    t.Array(t.String({ minLength: 1, maxLength: MAX_PATTERN_CHARS }), {
      maxItems: MAX_PATTERNS,
      description: `${what} URLs whose path (with its query) matches one of these RE2 patterns (no backreferences or lookaround), e.g. "^/docs/".`,
    }),
  );

export const MapRequestSchema = t.Object(
  {
    url: t.String({ format: "uri", maxLength: 2048, description: "The site's start page: public http(s), port 80 or 443." }),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_MAP_URLS, default: DEFAULT_MAP_URLS, description: `URLs returned at most (1 to ${MAX_MAP_URLS}).` })),
    include: PathPatterns("Keep only"),
    exclude: PathPatterns("Leave out"),
    sitemap: t.Optional(
      t.Union([t.Literal("include"), t.Literal("only"), t.Literal("skip")], { default: "include", description: "include: sitemaps, feeds and the start page's links; only: sitemaps alone; skip: feeds and links, no sitemap." }),
    ),
    search: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Ranks the URLs by these words in their URL and title or anchor text (no model)." })),
  },
  { additionalProperties: false },
);
export type MapRequest = Static<typeof MapRequestSchema>;

export const MappedUrlSchema = t.Object(
  {
    url: t.String(),
    lastmod: t.Optional(t.String()),
    source: t.Union([t.Literal("sitemap"), t.Literal("feed"), t.Literal("page")]),
  },
  { additionalProperties: false },
);
export type MappedUrl = Static<typeof MappedUrlSchema>;

export const MapOutputSchema = t.Object(
  {
    ok: t.Literal(true),
    url: t.String(),
    urls: t.Array(MappedUrlSchema),
    count: t.Integer({ minimum: 0 }),
    truncated: t.Boolean({ description: "More URLs were found than limit (or than the map's bounds let it read)." }),
    robots_excluded: t.Integer({ minimum: 0, description: "URLs left out because robots.txt disallows them." }),
    fetches: t.Integer({ minimum: 0, description: "Files fetched (robots.txt, sitemaps, feeds, the start page)." }),
  },
  { additionalProperties: false },
);
export type MapOutput = Static<typeof MapOutputSchema>;

export const mapPrice: NetworkPrices = { base: "0.01", algorand: "0.02" };

export interface MapPatterns {
  readonly include: readonly LinePattern[];
  readonly exclude: readonly LinePattern[];
}

/** The request's path patterns, compiled; throws ApiError PATTERN_INVALID naming the bad one. */
export function compileMapPatterns(input: Pick<MapRequest, "include" | "exclude">): MapPatterns {
  return { include: compileLinePatterns("include", input.include), exclude: compileLinePatterns("exclude", input.exclude) };
}

/** Patterns that are not RE2, or too costly, are 400 PATTERN_INVALID before any payment. */
export function checkMapRequest(input: MapRequest): CheckFailure | undefined {
  try {
    compileMapPatterns(input);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}
