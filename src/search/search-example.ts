/**
 * @module search/search-example — web/search's example for the plugin declaration and the docs:
 * one result read, with the example read result of web/read.
 */
import { exampleReadResult } from "../web/examples.ts";
import type { SearchOutput, SearchRequest } from "./search-schemas.ts";

export const exampleSearchRequest: SearchRequest = { query: "example domain", limit: 2, read: true };

export const exampleSearchOutput: SearchOutput = {
  ok: true,
  query: "example domain",
  engine: "searx",
  count: 2,
  results: [
    { rank: 1, url: "https://example.com/", title: "Example Domain", snippet: "This domain is for use in illustrative examples in documents.", engines: ["duckduckgo", "wikipedia"], read: exampleReadResult },
    {
      rank: 2,
      url: "https://example.org/private",
      title: "Example page",
      snippet: "An example page robots.txt keeps to itself.",
      engines: ["duckduckgo"],
      read: { ok: false, url: "https://example.org/private", error: "ROBOTS_DISALLOWED", status: 422, message: "robots.txt of the source does not allow this URL for our user agent." },
    },
  ],
  reads: { succeeded: 1, failed: 1 },
  content_is_untrusted: true,
};
