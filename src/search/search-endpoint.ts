/**
 * @module search/search-endpoint — what web/search runs: ask the configured engine, keep the
 * first `limit` distinct http(s) results, and with `read` read each of them through the web
 * engine (its SSRF guard and robots.txt, as any caller's URL: result URLs are untrusted) in
 * parallel, a few at a time per host. A search that finds nothing is an error, so it is never
 * charged; a read that fails is an inline error, and only the reads that succeed are charged.
 */
import { ApiError } from "../errors.ts";
import { readBatch } from "../web/batch.ts";
import { readOptions, type WebCapabilities } from "../web/endpoints.ts";
import { noteRead } from "../web/evidence-facts.ts";
import type { SearchEngine, SearchHit } from "./engine.ts";
import { DEFAULT_RESULTS, MAX_RESULTS, type SearchOutput, type SearchRequest, type SearchResult } from "./search-schemas.ts";

export interface SearchCapabilities extends WebCapabilities {
  readonly search?: SearchEngine | undefined;
}

const MAX_URL_CHARS = 2048;

/** The hit's URL as a key, when it is one a buyer may be given: absolute http(s), at most 2048 characters. */
function urlKey(raw: string): string | undefined {
  if (raw.length > MAX_URL_CHARS) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    url.hash = "";
    return url.href;
  } catch {
    return undefined;
  }
}

/** The first `limit` distinct http(s) hits, ranked from 1; a URL found twice keeps its first place and both engines' names. */
export function rankHits(hits: readonly SearchHit[], limit: number): SearchResult[] {
  const byKey = new Map<string, SearchResult>();
  for (const hit of hits) {
    const key = urlKey(hit.url);
    if (key === undefined) continue;
    const seen = byKey.get(key);
    if (seen) {
      byKey.set(key, { ...seen, engines: [...new Set([...seen.engines, ...hit.engines])] });
      continue;
    }
    if (byKey.size >= limit) continue;
    byKey.set(key, { rank: byKey.size + 1, url: hit.url, title: hit.title, snippet: hit.snippet, engines: [...new Set(hit.engines)] });
  }
  return [...byKey.values()];
}

export async function searchEndpoint(input: SearchRequest, { search, web, signal }: SearchCapabilities): Promise<SearchOutput> {
  if (!search) throw new ApiError("SKILL_UNAVAILABLE", { message: "No search engine is configured on this server (--search-url or --brave-api-key); nothing was charged." });
  const limit = input.limit ?? DEFAULT_RESULTS;
  const hits = await search.search(
    { query: input.query, limit, ...(input.site ? { site: input.site } : {}), ...(input.lang ? { lang: input.lang } : {}), ...(input.time_range ? { timeRange: input.time_range } : {}) },
    signal,
  );
  const results = rankHits(hits, limit);
  if (results.length === 0) throw new ApiError("SEARCH_NO_RESULTS", { message: `The search for ${JSON.stringify(input.query)} found nothing; nothing was charged.` });
  const found = { ok: true as const, query: input.query, engine: search.name, count: results.length, results, content_is_untrusted: true as const };
  if (!input.read) return found;

  const options = readOptions(input.read === true ? {} : input.read, "text");
  const reads = await readBatch(web, results.map((r) => r.url), options, signal, { maxUrls: MAX_RESULTS });
  // Reads that fail are not charged (plugins/web-search.ts `delivered`): when none succeed, the search alone is.
  const succeeded = reads.filter((r) => r.ok).length;
  return {
    ...found,
    results: results.map((result, index) => {
      const read = reads[index]!;
      return { ...result, read: read.ok ? noteRead(read, read) : read };
    }),
    reads: { succeeded, failed: results.length - succeeded },
  };
}
