/**
 * @module search/searx — a SearXNG (or searx) instance's JSON API: GET {base}/search?q=…&format=json
 * (SearXNG serves it only when `search.formats` in its settings.yml lists json). The instance fans
 * the query out to its engines, merges and de-duplicates; each hit keeps the engines that found it.
 */
import { getEngineJson, malformed, type SearchEngine, type SearchHit, textField } from "./engine.ts";

export interface SearxOptions {
  /** The instance's base URL, e.g. http://127.0.0.1:8888 (its /search is asked). */
  readonly baseUrl: string;
  readonly timeoutMs: number;
}

export function createSearxEngine(options: SearxOptions): SearchEngine {
  const base = options.baseUrl.replace(/\/+$/, "");
  return {
    name: "searx",
    endpoint: base,
    async search(query, signal) {
      const url = new URL(`${base}/search`);
      url.searchParams.set("q", query.site ? `${query.query} site:${query.site}` : query.query);
      url.searchParams.set("format", "json");
      if (query.lang) url.searchParams.set("language", query.lang);
      if (query.timeRange) url.searchParams.set("time_range", query.timeRange);
      const body = await getEngineJson("searx", url, { timeoutMs: options.timeoutMs, signal });
      const results = (body as { results?: unknown } | null)?.results;
      if (!Array.isArray(results)) throw malformed("searx", "a results array");
      return results.flatMap((r: Record<string, unknown>): SearchHit[] => {
        const link = textField(r?.url);
        if (!link) return [];
        const engines = Array.isArray(r.engines) ? r.engines.filter((e): e is string => typeof e === "string") : [];
        const single = textField(r.engine);
        return [{ url: link, title: textField(r.title) ?? "", snippet: textField(r.content) ?? "", engines: engines.length > 0 ? engines : single ? [single] : [] }];
      });
    },
  };
}
