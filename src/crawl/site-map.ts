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
import { ROBOTS_MAX_BYTES, type RobotsMatcher } from "../web/fetch/robots.ts";
import { compileMapPatterns, DEFAULT_MAP_URLS, type MapOutput, type MappedUrl, type MapRequest } from "./map-schemas.ts";
import { pageOffers } from "./page-links.ts";
import { MAX_SITEMAP_BYTES, readSitemap, sitemapText } from "./sitemap-read.ts";

export const MAX_MAP_FETCHES = 50;
const MAX_TOTAL_BYTES = 200 * 1024 * 1024;
const MAX_CANDIDATES = 200_000;

/** A URL found; one object shape for all (no optional fields), as there may be 200,000 of them. */
interface Candidate {
  url: string;
  source: MappedUrl["source"];
  lastmod: string | undefined;
  /** Title or anchor text, for `search`. */
  words: string;
  origin: string;
  /** Path and query, what include/exclude and robots.txt look at. */
  path: string;
}

/** The site's host without a leading www., so example.com and www.example.com are one site. */
export const siteOf = (host: string) => host.toLowerCase().replace(/^www\./, "");

/** The canonical form of a URL on `site` (any site when undefined): http(s), no fragment, no default port; undefined when it is elsewhere or not a URL. */
export function canonicalOn(raw: string, site: string | undefined): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || (site !== undefined && siteOf(url.hostname) !== site) || url.username || url.password) return undefined;
  url.hash = "";
  return url;
}

/**
 * After an origin as the URL parser spells it: characters the parser leaves as they are (and no `/.`,
 * checked apart: no dot segment to remove). A URL of a known origin whose rest is this is canonical already.
 */
const PLAIN_REST = /^\/[A-Za-z0-9\-._~/?=&]*$/;

/**
 * Canonical forms of URLs on one site: http(s), no fragment, no default port, no user info. The URL
 * parser decides; a URL that starts with an origin it already spelled and holds only plain
 * characters after it is taken as written (a sitemap's 50,000 URLs parse once, not each time).
 */
function createCanonicaliser(site: string) {
  const origins = new Set<string>();
  /** The origin the last URL had: a sitemap's URLs share one, so it is tried first. */
  let last = "";
  return (raw: string): { href: string; origin: string; path: string } | undefined => {
    if (last === "" || !raw.startsWith(last) || raw.charCodeAt(last.length) !== 0x2f) {
      const slash = raw.indexOf("/", raw.indexOf("//") + 2);
      if (slash > 0 && origins.has(raw.slice(0, slash))) last = raw.slice(0, slash);
    }
    if (last !== "" && raw.startsWith(last) && raw.charCodeAt(last.length) === 0x2f) {
      const rest = raw.slice(last.length);
      if (PLAIN_REST.test(rest) && !rest.includes("/.")) return { href: raw, origin: last, path: rest };
    }
    const url = canonicalOn(raw, site);
    if (!url) return undefined;
    origins.add(url.origin);
    return { href: url.href, origin: url.origin, path: url.pathname + url.search };
  };
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
  const canonical = createCanonicaliser(site);
  const consider = (raw: string, source: MappedUrl["source"], lastmod: string | undefined, words: string) => {
    const url = canonical(raw);
    if (!url) return;
    const key = url.href;
    const seen = found.get(key);
    if (seen) {
      if (words) seen.words += ` ${words}`;
      if (!seen.lastmod && lastmod) seen.lastmod = lastmod;
      return;
    }
    if (found.size >= MAX_CANDIDATES) {
      cut = true;
      return;
    }
    found.set(key, { url: key, source, lastmod, words, origin: url.origin, path: url.path });
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
      else if (file?.kind === "urlset" || file?.kind === "feed") for (const u of file.urls) consider(u.url, "sitemap", u.lastmod, "");
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
      if (file?.kind === "feed" || file?.kind === "urlset") for (const u of file.urls) consider(u.url, "feed", u.lastmod, "");
    }
    for (const link of offers.links) consider(link.url, "page", undefined, link.text);
  }

  const limit = input.limit ?? DEFAULT_MAP_URLS;
  const filtered = patterns.include.length > 0 || patterns.exclude.length > 0;
  let candidates = [...found.values()].filter(
    (c) => !filtered || ((patterns.include.length === 0 || firstMatch(patterns.include, c.path) >= 0) && firstMatch(patterns.exclude, c.path) < 0),
  );
  if (input.search) {
    const words = input.search.toLowerCase().split(/\s+/).filter(Boolean);
    const scored = candidates.map((c, index) => ({ c, index, score: scoreOf(c, words) }));
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    candidates = scored.map((s) => s.c);
  }
  // robots.txt is read once per origin and asked synchronously for each URL.
  const matchers = new Map<string, RobotsMatcher>();
  const urls: MappedUrl[] = [];
  let robotsExcluded = 0;
  let next = 0;
  for (; next < candidates.length && urls.length < limit; next++) {
    const { url, source, lastmod, origin, path } = candidates[next]!;
    let allowed = matchers.get(origin);
    if (!allowed) {
      allowed = await web.robotsMatcher(origin, signal);
      matchers.set(origin, allowed);
    }
    if (allowed(path)) urls.push(lastmod ? { url, source, lastmod } : { url, source });
    else robotsExcluded++;
  }
  if (urls.length === 0 && robotsExcluded === 0) {
    throw new ApiError("MAP_NO_URLS", { message: `No URL of ${start.hostname} was found${mode === "only" ? " in its sitemaps" : ""}; nothing was charged.` });
  }
  return { ok: true, url: input.url, urls, count: urls.length, truncated: cut || next < candidates.length, robots_excluded: robotsExcluded, fetches };
}
