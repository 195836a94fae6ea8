/**
 * @module crawl/crawl-links — which URLs a crawled page adds to the frontier: the page's links as
 * its extraction parsed them (web/engine.ts `onPageLinks`: no second parse), canonical
 * (crawl/site-map.ts), on the start page's site unless `same_site: false`, through include/exclude,
 * never past `max_depth`.
 */
import { firstMatch } from "../web/filters/line-patterns.ts";
import { compileMapPatterns, type MapPatterns } from "./map-schemas.ts";
import type { CrawlRequest } from "./crawl-schemas.ts";
import { DEFAULT_CRAWL_DEPTH } from "./crawl-schemas.ts";
import type { FrontierEntry } from "./crawl-store.ts";
import { canonicalOn, siteOf } from "./site-map.ts";

export interface LinkRules {
  /** The start page's site, or undefined when the crawl may leave it. */
  readonly site: string | undefined;
  readonly patterns: MapPatterns;
  readonly maxDepth: number;
}

export function linkRulesOf(request: CrawlRequest): LinkRules {
  return {
    site: request.same_site === false ? undefined : siteOf(new URL(request.url).hostname),
    patterns: compileMapPatterns(request),
    maxDepth: request.max_depth ?? DEFAULT_CRAWL_DEPTH,
  };
}

/** The canonical form of `raw` when the crawl may follow it (site and patterns), else undefined. */
export function followable(raw: string, rules: LinkRules): string | undefined {
  const url = canonicalOn(raw, rules.site);
  if (!url) return undefined;
  const path = url.pathname + url.search;
  const { include, exclude } = rules.patterns;
  if (include.length > 0 && firstMatch(include, path) < 0) return undefined;
  return firstMatch(exclude, path) < 0 ? url.href : undefined;
}

/** Of a page's links (absolute), those the crawl follows, at `depth + 1`; none from a page at `max_depth`. */
export function linksToFollow(links: readonly string[], depth: number, rules: LinkRules): FrontierEntry[] {
  if (depth >= rules.maxDepth) return [];
  const seen = new Set<string>();
  const entries: FrontierEntry[] = [];
  for (const link of links) {
    const url = followable(link, rules);
    if (url && !seen.has(url)) {
      seen.add(url);
      entries.push({ url, depth: depth + 1 });
    }
  }
  return entries;
}
