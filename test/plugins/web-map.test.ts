/**
 * web.map through the whole service (in-process app, payments off) against a loopback site: robots.txt
 * Sitemap lines, a nested index of gzip sitemaps, a feed and the start page's links, canonical and
 * de-duplicated, robots.txt exclusions counted; include/exclude/search/limit; and hostile sitemaps
 * (a gzip bomb, an entity declaration, too many URLs) refused with their codes.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { gzipSync } from "node:zlib";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";

let site: SiteServer;
let service: TestService;
type Body = Record<string, unknown> & { urls?: { url: string; source: string; lastmod?: string }[] };

const urlset = (entries: { loc: string; lastmod?: string }[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries
    .map((e) => `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}</url>`)
    .join("")}</urlset>`;
const index = (locs: string[]) => `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join("")}</sitemapindex>`;
const gz = (text: string) => gzipSync(new TextEncoder().encode(text));

async function map(json: unknown, on = service): Promise<{ status: number; body: Body }> {
  const res = await on.request("/v1/web/map", { method: "POST", json });
  return { status: res.status, body: (await res.json()) as Body };
}

beforeAll(async () => {
  site = startSiteServer();
  const u = (path: string) => site.url(path);
  site.set("/robots.txt", `User-agent: *\nDisallow: /private\n\nSitemap: ${u("/sitemap-index.xml")}\n`, "text/plain");
  site.set("/sitemap-index.xml", index([u("/maps/docs.xml.gz"), u("/maps/more.xml.gz")]), "application/xml");
  site.set("/maps/docs.xml.gz", gz(urlset([{ loc: u("/docs/"), lastmod: "2026-11-02" }, { loc: u("/docs/install") }, { loc: u("/private/notes") }])), "application/gzip");
  site.set("/maps/more.xml.gz", gz(urlset([{ loc: `${u("/docs/install")}#top` }, { loc: u("/blog/") }, { loc: "https://elsewhere.example/page" }])), "application/gzip");
  site.set(
    "/",
    `<!doctype html><html><head><title>Home</title><link rel="alternate" type="application/atom+xml" href="/feed.atom"></head><body>
     <nav><a href="/docs/">Docs</a> <a href="/pricing">Plans and pricing</a> <a href="https://other.example/x">Other site</a> <a href="mailto:a@b.c">Mail</a></nav>
     <main><a href="/private/secret">secret</a></main></body></html>`,
  );
  site.set(
    "/feed.atom",
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Release</title><link href="${u("/blog/release")}"/><updated>2026-11-30T00:00:00Z</updated></entry></feed>`,
    "application/atom+xml",
  );
  service = await testService(["--unsafe-allow-loopback-targets"]);
});
afterAll(async () => {
  await service.close();
  await site.stop();
});

describe("web.map", () => {
  it("maps sitemaps (nested, gzip), the feed and the start page's links: canonical, once each, on the site only, robots.txt exclusions counted", async () => {
    const { status, body } = await map({ url: site.url("/") });
    expect(status).toBe(200);
    const bySource = Object.fromEntries(body.urls!.map((e) => [e.url, e.source]));
    expect(bySource).toEqual({
      [site.url("/docs/")]: "sitemap",
      [site.url("/docs/install")]: "sitemap",
      [site.url("/blog/")]: "sitemap",
      [site.url("/blog/release")]: "feed",
      [site.url("/pricing")]: "page",
    });
    expect(body.urls!.find((e) => e.url === site.url("/docs/"))!.lastmod).toBe("2026-11-02");
    expect(body).toMatchObject({ ok: true, count: 5, truncated: false, robots_excluded: 2 });
    // robots.txt, the index, its two sitemaps, the start page, the feed.
    expect(body.fetches).toBe(6);
    expect(site.hits("/private/notes")).toBe(0);
  });

  it("reads only the sitemaps with sitemap: only, and none with sitemap: skip", async () => {
    const only = await map({ url: site.url("/"), sitemap: "only" });
    expect(only.body.urls!.every((e) => e.source === "sitemap")).toBe(true);
    expect(only.body.count).toBe(3);
    const skip = await map({ url: site.url("/"), sitemap: "skip" });
    expect(skip.body.urls!.map((e) => e.source).sort()).toEqual(["feed", "page", "page"]);
  });

  it("filters paths with include and exclude, ranks by search words, and stops at limit (truncated)", async () => {
    const docs = await map({ url: site.url("/"), include: ["^/docs/"], exclude: ["install$"] });
    expect(docs.body.urls!.map((e) => e.url)).toEqual([site.url("/docs/")]);
    const ranked = await map({ url: site.url("/"), search: "pricing plans" });
    expect(ranked.body.urls![0]!.url).toBe(site.url("/pricing"));
    const cut = await map({ url: site.url("/"), limit: 2 });
    expect(cut.body).toMatchObject({ count: 2, truncated: true });
  });

  it("refuses bad input with 400: limits out of range, patterns that are not RE2 or match everything", async () => {
    for (const [body, code] of [
      [{ url: site.url("/"), limit: 0 }, "INVALID_REQUEST"],
      [{ url: site.url("/"), limit: 100_001 }, "INVALID_REQUEST"],
      [{ url: site.url("/"), sitemap: "maybe" }, "INVALID_REQUEST"],
      [{ url: site.url("/"), search: "x".repeat(20_000) }, "INVALID_REQUEST"],
      [{ url: site.url("/"), include: Array.from({ length: 21 }, (_, i) => `^/p/${i}`) }, "INVALID_REQUEST"],
      [{ url: site.url("/"), include: ["(a"] }, "PATTERN_INVALID"],
      [{ url: site.url("/"), include: ["(?<=x)y"] }, "PATTERN_INVALID"],
      [{ url: site.url("/"), exclude: ["(a+)\\1"] }, "PATTERN_INVALID"],
      // Linear in RE2, but its program is too large to run over every path of a 100,000-URL map.
      [{ url: site.url("/"), include: ["((a{1,30}){1,30})"] }, "PATTERN_INVALID"],
      [{ url: site.url("/"), exclude: [".*"] }, "PATTERN_INVALID"],
      [{ url: "file:///etc/passwd" }, "URL_NOT_ALLOWED"],
    ] as const) {
      const answer = await map(body);
      expect({ body: JSON.stringify(body).slice(0, 60), status: answer.status, error: answer.body.error }).toEqual({ body: JSON.stringify(body).slice(0, 60), status: 400, error: code });
    }
  });

  it("is 404 MAP_NO_URLS, uncharged, when the site lists nothing", async () => {
    const empty = startSiteServer();
    empty.set("/", "<html><body><p>No links here.</p></body></html>");
    try {
      expect(await map({ url: empty.url("/") })).toMatchObject({ status: 404, body: { error: "MAP_NO_URLS" } });
    } finally {
      await empty.stop();
    }
  });
});

describe("web.map against hostile sitemaps", () => {
  let hostile: SiteServer;
  beforeAll(() => {
    hostile = startSiteServer();
    hostile.set("/", "<html><body><a href='/a'>a</a></body></html>");
  });
  afterAll(() => hostile.stop());

  const withSitemap = (body: string | Uint8Array, type: string) => {
    hostile.set("/robots.txt", `User-agent: *\nAllow: /\nSitemap: ${hostile.url("/sitemap-x")}\n`, "text/plain");
    hostile.set("/sitemap-x", body, type);
  };

  it("refuses a gzip bomb (a small file inflating past 50 MiB) with 422 SITEMAP_TOO_LARGE", async () => {
    withSitemap(gzipSync(new Uint8Array(51 * 1024 * 1024), { level: 9 }), "application/gzip");
    const { status, body } = await map({ url: hostile.url("/") });
    expect(status).toBe(422);
    expect(body).toMatchObject({ ok: false, error: "SITEMAP_TOO_LARGE" });
  });

  it("refuses entity declarations (billion laughs) with 422 SITEMAP_XML_REFUSED, expanding nothing", async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><urlset><url><loc>${hostile.url("/&lol3;")}</loc></url></urlset>`;
    withSitemap(laughs, "application/xml");
    expect(await map({ url: hostile.url("/") })).toMatchObject({ status: 422, body: { error: "SITEMAP_XML_REFUSED" } });
    withSitemap(`<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><urlset><url><loc>${hostile.url("/")}&xxe;</loc></url></urlset>`, "application/xml");
    expect(await map({ url: hostile.url("/") })).toMatchObject({ status: 422, body: { error: "SITEMAP_XML_REFUSED" } });
  });

  it("refuses a sitemap of more than 50,000 URLs with 422 SITEMAP_TOO_LARGE", async () => {
    withSitemap(gz(urlset(Array.from({ length: 50_001 }, (_, i) => ({ loc: hostile.url(`/p/${i}`) })))), "application/gzip");
    expect(await map({ url: hostile.url("/") })).toMatchObject({ status: 422, body: { error: "SITEMAP_TOO_LARGE" } });
  });

  it("skips a sitemap on a refused address (the fetch guard) and maps the rest", async () => {
    hostile.set("/robots.txt", "User-agent: *\nAllow: /\nSitemap: http://169.254.169.254/latest/meta-data/\n", "text/plain");
    const { status, body } = await map({ url: hostile.url("/") });
    expect(status).toBe(200);
    expect(body.urls).toEqual([{ url: hostile.url("/a"), source: "page" }]);
  });

  it("reads an RSS feed as a sitemap: CDATA and the predefined entities decoded, namespaced tags, duplicates merged", async () => {
    const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
      <item><title>One</title><link><![CDATA[${hostile.url("/post?id=1&page=2")}]]></link><pubDate>Mon, 30 Nov 2026 00:00:00 GMT</pubDate></item>
      <item><title>Two</title><link>${hostile.url("/post?id=1&amp;page=2")}</link></item>
      <item><title>Three</title><link>${hostile.url("/caf&#xE9;")}</link></item></channel></rss>`;
    withSitemap(rss, "application/rss+xml");
    const { status, body } = await map({ url: hostile.url("/"), sitemap: "only" });
    expect(status).toBe(200);
    expect(body.urls).toEqual([
      { url: hostile.url("/post?id=1&page=2"), lastmod: "Mon, 30 Nov 2026 00:00:00 GMT", source: "sitemap" },
      { url: hostile.url("/caf%C3%A9"), source: "sitemap" },
    ]);
  });

  it("maps a 50,000-URL sitemap within its limits", async () => {
    withSitemap(gz(urlset(Array.from({ length: 50_000 }, (_, i) => ({ loc: hostile.url(`/p/${i}`) })))), "application/gzip");
    const { status, body } = await map({ url: hostile.url("/"), limit: 100_000, sitemap: "only" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ count: 50_000, truncated: false, robots_excluded: 0 });
  });
});
