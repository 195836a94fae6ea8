/**
 * @module search/brave — the Brave Search API (web search): GET {base}/res/v1/web/search?q=…&count=…
 * with the key in X-Subscription-Token; hits are `web.results[]` of {title, url, description}.
 * `count` is at most 20; `freshness` pd/pw/pm/py; `search_lang` a language code.
 */
import { getEngineJson, malformed, type SearchEngine, type TimeRange, textField } from "./engine.ts";

export const BRAVE_API_URL = "https://api.search.brave.com";
const MAX_COUNT = 20;
const freshness: Record<TimeRange, string> = { day: "pd", week: "pw", month: "pm", year: "py" };

/** Brave marks the matched words with <strong>; the snippet is plain text. */
function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, "");
}

export interface BraveOptions {
  readonly apiKey: string;
  /** Default https://api.search.brave.com (tests point it at a loopback server speaking the same protocol). */
  readonly baseUrl?: string;
  readonly timeoutMs: number;
}

export function createBraveEngine(options: BraveOptions): SearchEngine {
  const base = (options.baseUrl ?? BRAVE_API_URL).replace(/\/+$/, "");
  return {
    name: "brave",
    endpoint: base,
    async search(query, signal) {
      const url = new URL(`${base}/res/v1/web/search`);
      url.searchParams.set("q", query.site ? `${query.query} site:${query.site}` : query.query);
      url.searchParams.set("count", String(Math.min(query.limit, MAX_COUNT)));
      if (query.lang) url.searchParams.set("search_lang", query.lang);
      if (query.timeRange) url.searchParams.set("freshness", freshness[query.timeRange]);
      const body = await getEngineJson("brave", url, { headers: { "X-Subscription-Token": options.apiKey }, timeoutMs: options.timeoutMs, signal });
      if (typeof body !== "object" || body === null) throw malformed("brave", "an object");
      // An answer with no web section found nothing (Brave leaves it out then).
      const web = (body as { web?: { results?: unknown } }).web;
      if (web === undefined) return [];
      if (!Array.isArray(web?.results)) throw malformed("brave", "web.results");
      return web.results.flatMap((r: Record<string, unknown>) => {
        const link = textField(r?.url);
        return link ? [{ url: link, title: textField(r.title) ?? "", snippet: stripTags(textField(r.description) ?? ""), engines: ["brave"] }] : [];
      });
    },
  };
}
