/**
 * @module search/search-config — the search engine's settings, as rows for src/config.ts's table
 * (`...searchConfigFields`), the engine a configuration names (none: web/search is not offered),
 * and the doctor line that says how to turn it on.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import { createBraveEngine } from "./brave.ts";
import type { SearchEngine } from "./engine.ts";
import { createSearxEngine } from "./searx.ts";

export const searchConfigFields = {
  searchUrl: t.Optional(
    t.String({
      pattern: "^https?://",
      description: "Base URL of a SearXNG/searx instance whose JSON API answers web/search (SearXNG: list json under search.formats in its settings.yml). Unset, and no --brave-api-key: web/search is not offered.",
    }),
  ),
  braveApiKey: t.Optional(t.String({ minLength: 1, description: "Brave Search API key (never logged): web/search asks the Brave Search API when no --search-url is set." })),
  braveApiUrl: t.Optional(t.String({ pattern: "^https?://", description: "Base URL of the Brave Search API (default https://api.search.brave.com; tests point it at a loopback server)." })),
  searchTimeoutMs: t.Integer({ minimum: 500, maximum: 60_000, default: 10_000, description: "How long web/search waits for its engine; past it the call is 504 SEARCH_ENGINE_TIMEOUT and nothing is charged." }),
};

const SearchConfig = t.Object(searchConfigFields);
export type SearchConfig = Static<typeof SearchConfig>;

/** Whether this configuration names an engine (web/search is offered only then). */
export function hasSearchEngine(config: Partial<SearchConfig>): boolean {
  return Boolean(config.searchUrl || config.braveApiKey);
}

/** The engine this configuration names: the searx instance first, else Brave; undefined: web/search is not offered. */
export function searchEngineFor(config: SearchConfig): SearchEngine | undefined {
  if (config.searchUrl) return createSearxEngine({ baseUrl: config.searchUrl, timeoutMs: config.searchTimeoutMs });
  if (config.braveApiKey) return createBraveEngine({ apiKey: config.braveApiKey, ...(config.braveApiUrl ? { baseUrl: config.braveApiUrl } : {}), timeoutMs: config.searchTimeoutMs });
  return undefined;
}
