/** Buys the map of a site: its URLs from robots.txt's sitemaps, sitemap indexes, feeds and the start page's links. */
import { checkMapRequest, definePlugin, MapOutputSchema, mapPrice, MapRequestSchema, mapSite } from "tollbooth";

export default definePlugin({
  id: "web.map",
  route: "POST /v1/web/map",
  summary: "Map a site: its URLs from sitemaps (indexes, gzip), feeds and the start page's links, canonical, de-duplicated, robots.txt honoured.",
  description:
    "Reads robots.txt's Sitemap lines (else /sitemap.xml), nested sitemap indexes and .xml.gz files, the RSS/Atom feeds the start page announces and its links; keeps URLs on the start page's host, once each, leaving out (and counting) those robots.txt disallows. include/exclude filter paths with RE2 patterns; search ranks by words in the URL and title or anchor text. Bounded: 50 fetches, 50 MiB and 50,000 URLs per sitemap. A gzip bomb (422 SITEMAP_TOO_LARGE) or a DOCTYPE/entity declaration (422 SITEMAP_XML_REFUSED) ends the call uncharged, as does a site with no URL found (404 MAP_NO_URLS).",
  input: MapRequestSchema,
  output: MapOutputSchema,
  check: checkMapRequest,
  price: mapPrice,
  timeoutMs: 60_000,
  errors: ["URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "PATTERN_INVALID", "SITEMAP_TOO_LARGE", "SITEMAP_XML_REFUSED", "SITEMAP_INVALID", "MAP_NO_URLS"],
  examples: [
    {
      title: "Map the documentation of a site",
      input: { url: "https://example.com/", include: ["^/docs/"], limit: 100 },
      output: {
        ok: true,
        url: "https://example.com/",
        urls: [
          { url: "https://example.com/docs/", lastmod: "2026-11-02", source: "sitemap" },
          { url: "https://example.com/docs/install", source: "page" },
        ],
        count: 2,
        truncated: false,
        robots_excluded: 1,
        fetches: 3,
      },
    },
  ],
  run: (input, ctx) => mapSite(input, ctx),
});
