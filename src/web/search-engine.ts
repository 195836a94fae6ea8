/**
 * @module web/search-engine — the port web/search asks through (a SearXNG instance, the Brave Search
 * API: src/search/ holds them). It sits beside the web engine so that the plugin context can carry an
 * engine without importing the search feature.
 */
export type TimeRange = "day" | "week" | "month" | "year";

export interface SearchQuery {
  readonly query: string;
  /** How many hits are wanted (the engine may give fewer). */
  readonly limit: number;
  /** Only pages of this host name. */
  readonly site?: string;
  /** A language code such as "en" or "de". */
  readonly lang?: string;
  readonly timeRange?: TimeRange;
}

export interface SearchHit {
  readonly url: string;
  readonly title: string;
  readonly snippet: string;
  /** The engines that found it (a metasearch instance merges several). */
  readonly engines: readonly string[];
}

export interface SearchEngine {
  /** "searx" or "brave", for logs, doctor and the catalogue. */
  readonly name: string;
  /** Where it asks (its base URL), for doctor; never holds a key. */
  readonly endpoint: string;
  /** Hits in the engine's order. Throws ApiError SEARCH_ENGINE_FAILED or SEARCH_ENGINE_TIMEOUT. */
  search(query: SearchQuery, signal: AbortSignal): Promise<SearchHit[]>;
}
