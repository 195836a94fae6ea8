/**
 * @module doctor/search — `tollbooth doctor`'s line on web/search: which engine answers it,
 * or how to turn it on.
 */
import { searchEngineFor } from "../search/search-config.ts";
import type { Check } from "./check.ts";

/** `tollbooth doctor`: which engine answers web/search, or how to turn it on. */
export const checkSearch: Check = (config) => {
  const engine = searchEngineFor(config);
  if (!engine) {
    return {
      name: "web search",
      status: "ok",
      detail: "off: web/search is not offered. Turn it on with --search-url http://HOST:PORT (a SearXNG/searx instance with its JSON format on) or --brave-api-key KEY (TOLLBOOTH_SEARCH_URL, TOLLBOOTH_BRAVE_API_KEY)",
    };
  }
  return { name: "web search", status: "ok", detail: `web/search asks ${engine.name} at ${engine.endpoint} (timeout ${config.searchTimeoutMs} ms)` };
};
