/**
 * @module crawl/site-map — what web/map runs: the URLs of one site from robots.txt's `Sitemap:`
 * lines (else /sitemap.xml), sitemap indexes (nested, gzip), the RSS/Atom feeds the start page
 * announces and the start page's links; canonical and de-duplicated, on the start page's host
 * only, without those robots.txt disallows (counted). Every fetch goes through the web engine's
 * guard and robots.txt. Bounded: at most 50 fetches, 200 MiB read in all, 200,000 URLs
 * considered, and each sitemap within sitemaps.org's limits (crawl/sitemap-read.ts).
 */
import { ApiError } from "../errors.ts";
import { WEB_MAX_BYTES } from "../web/engine.ts";
import type { WebCapabilities } from "../web/endpoints.ts";
import { firstMatch } from "../web/filters/line-patterns.ts";
import { ROBOTS_MAX_BYTES } from "../web/fetch/robots.ts";
import { compileMapPatterns, DEFAULT_MAP_URLS, type MapOutput, type MappedUrl, type MapRequest } from "./map-schemas.ts";
import { pageOffers } from "./page-links.ts";
import { MAX_SITEMAP_BYTES, readSitemap, sitemapText } from "./sitemap-read.ts";

export const MAX_MAP_FETCHES = 50;
const MAX_TOTAL_BYTES = 200 * 1024 * 1024;
const MAX_CANDIDATES = 200_000;

interface Candidate extends MappedUrl {
  /** Title or anchor text, for `search`. */
  words: string;
}

/** The site's host without a leading www., so example.com and www.example.com are one site. */
export const siteOf = (host: string) => host.toLowerCase().replace(/^www\./, "");

/** The canonical form of a URL on `site` (any site when undefined): http(s), no fragment, no default port; undefined when it is elsewhere or not a URL. */
export function canonicalOn(raw: string, site: string | undefined): URL | undefined {
  try {
    const url = new URL(raw.trim());
    if ((url.protocol !== "http:" && url.protocol !== "https:") || (site !== undefined && siteOf(url.hostname) !== site) || url.username || url.password) return undefined;
    url.hash = "";
    return url;
  } catch {
    return undefined;
  }
}

/** How many of the search words the URL and its words hold (words in the title or anchor count twice). */
function scoreOf(candidate: Candidate, words: readonly string[]): number {
  const url = decodeURIComponentSafe(candidate.url).toLowerCase();
  const text = candidate.words.toLowerCase();
  return words.reduce((sum, word) => sum + (url.includes(word) ? 1 : 0) + (text.includes(word) ? 2 : 0), 0);
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Errors that end the map: a hostile sitemap, or the call's own deadline. Anything else only skips that file. */
const fatal = (error: unknown) => error instanceof ApiError && (error.code.startsWith("SITEMAP_") || error.code === "OPERATION_TIMEOUT" || error.code === "CLIENT_CLOSED");

export async function mapSite(input: MapRequest, { web, signal }: WebCapabilities): Promise<MapOutput> {
  const start = new URL(input.url);
  const site = siteOf(start.hostname);
  const mode = input.sitemap ?? "include";
  const patterns = compileMapPatterns(input);
  const found = new Map<string, Candidate>();
  let fetches = 0;
  let bytesRead = 0;
  let cut = false;

  // A sitemap over its size limit ends the call (SITEMAP_TOO_LARGE); another file over its limit is only skipped.
  const fetchFile = async (url: string, maxBytes: number, tooLargeCode: "SITEMAP_TOO_LARGE" | "SOURCE_TOO_LARGE" = "SITEMAP_TOO_LARGE") => {
    if (fetches >= MAX_MAP_FETCHES || bytesRead >= MAX_TOTAL_BYTES) {
      cut = true;
      return undefined;
    }
    fetches++;
    try {
      const file = await web.fetchBytes(url, { maxBytes, tooLargeCode, signal });
      bytesRead += file.bytes.length;
      return file;
    } catch (error) {
      if (fatal(error) || signal.aborted) throw error;
      return undefined;
    }
  };
  const consider = (raw: string, source: MappedUrl["source"], extra: { lastmod?: string; words?: string } = {}) => {
    const url = canonicalOn(raw, site);
    if (!url) return;
    const key = url.href;
    const seen = found.get(key);
    if (seen) {
      if (extra.words) seen.words += ` ${extra.words}`;
      if (!seen.lastmod && extra.lastmod) seen.lastmod = extra.lastmod;
      return;
    }
    if (found.size >= MAX_CANDIDATES) {
      cut = true;
      return;
    }
    found.set(key, { url: key, source, words: extra.words ?? "", ...(extra.lastmod ? { lastmod: extra.lastmod } : {}) });
  };
  const readListing = async (url: string) => {
    const file = await fetchFile(url, MAX_SITEMAP_BYTES);
    return file ? readSitemap(sitemapText(file.bytes, url), url) : undefined;
  };

  if (mode !== "skip") {
    const robots = await fetchFile(`${start.origin}/robots.txt`, ROBOTS_MAX_BYTES, "SOURCE_TOO_LARGE");
    const listed = robots ? [...new TextDecoder().decode(robots.bytes).matchAll(/^[ \t]*sitemap[ \t]*:[ \t]*(\S+)/gim)].map((m) => m[1]!) : [];
    const queue = listed.length > 0 ? listed : [`${start.origin}/sitemap.xml`];
    const asked = new Set<string>();
    while (queue.length > 0 && !cut) {
      const next = queue.shift()!;
      if (asked.has(next)) continue;
      asked.add(next);
      const file = await readListing(next);
      if (file?.kind === "index") queue.push(...file.sitemaps);
      else if (file?.kind === "urlset" || file?.kind === "feed") for (const u of file.urls) consider(u.url, "sitemap", u.lastmod ? { lastmod: u.lastmod } : {});
    }
  }
  if (mode !== "only") {
    // The start page must be readable: its failure (refused, unreachable) is the call's.
    fetches++;
    const page = await web.fetchBytes(start.href, { maxBytes: WEB_MAX_BYTES, tooLargeCode: "SOURCE_TOO_LARGE", signal });
    bytesRead += page.bytes.length;
    const offers = pageOffers(new TextDecoder().decode(page.bytes), page.finalUrl);
    for (const feed of [...new Set(offers.feeds)]) {
      const file = await readListing(feed);
      if (file?.kind === "feed" || file?.kind === "urlset") for (const u of file.urls) consider(u.url, "feed", u.lastmod ? { lastmod: u.lastmod } : {});
    }
    for (const link of offers.links) consider(link.url, "page", { words: link.text });
  }

  const limit = input.limit ?? DEFAULT_MAP_URLS;
  const pathOf = (url: string) => {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  };
  let candidates = [...found.values()].filter((c) => {
    const path = pathOf(c.url);
    return (patterns.include.length === 0 || firstMatch(patterns.include, path) >= 0) && firstMatch(patterns.exclude, path) < 0;
  });
  if (input.search) {
    const words = input.search.toLowerCase().split(/\s+/).filter(Boolean);
    const scored = candidates.map((c, index) => ({ c, index, score: scoreOf(c, words) }));
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    candidates = scored.map((s) => s.c);
  }
  const urls: MappedUrl[] = [];
  let robotsExcluded = 0;
  let next = 0;
  for (; next < candidates.length && urls.length < limit; next++) {
    const { words: _words, ...mapped } = candidates[next]!;
    if (await web.allowedByRobots(mapped.url, signal)) urls.push(mapped);
    else robotsExcluded++;
  }
  if (urls.length === 0 && robotsExcluded === 0) {
    throw new ApiError("MAP_NO_URLS", { message: `No URL of ${start.hostname} was found${mode === "only" ? " in its sitemaps" : ""}; nothing was charged.` });
  }
  return { ok: true, url: input.url, urls, count: urls.length, truncated: cut || next < candidates.length, robots_excluded: robotsExcluded, fetches };
}
