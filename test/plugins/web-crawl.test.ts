/**
 * web.crawl through the whole service (in-process app, payments off) against a loopback site: a
 * crawl runs to its limit exactly with each page fetched once and signed, robots.txt and the site
 * boundary hold, text duplicates are counted, a cancel stops it (the payer's proof: web-crawl-proof.test.ts).
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { SiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";
import { pageHits, startTreeSite, treePage } from "../crawl/crawl-site.ts";

let site: SiteServer;
let service: TestService;
const PAGES = 40;

type Crawl = { ok: boolean; crawl_id: string; status_url: string; error?: string };
type Status = { status: string; counts: { discovered: number; fetched: number; failed: number; robots_blocked: number; duplicates: number }; pages: { ok: boolean; url: string; attestation?: unknown; error?: string }[]; next_cursor: string; more_pages: boolean; stop_reason?: string; error?: unknown };

async function startCrawl(json: Record<string, unknown>): Promise<{ status: number; body: Crawl }> {
  const res = await service.request("/v1/web/crawl", { method: "POST", json });
  return { status: res.status, body: (await res.json()) as Crawl };
}
// Payments are off: the crawl has no payer and is read with its id, as a job is.
const statusOf = async (crawl: Crawl, query = "") => {
  const res = await service.request(`/v1/web/crawl/${crawl.crawl_id}${query}`);
  return { status: res.status, body: (await res.json()) as Status };
};
async function finished(crawl: Crawl, timeoutMs = 30_000): Promise<Status> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await statusOf(crawl, "?limit=200");
    if (!["queued", "running"].includes(body.status)) return body;
    if (Date.now() > until) throw new Error(`crawl still ${body.status} after ${timeoutMs} ms: ${JSON.stringify(body.counts)}`);
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  site = startTreeSite(PAGES, {
    1: `<a href="/private/secret">secret</a> <a href="https://elsewhere.example/page">elsewhere</a>`,
    2: `<a href="/dup-a">a</a> <a href="/dup-b">b</a>`,
  });
  site.set("/robots.txt", "User-agent: *\nDisallow: /private\n", "text/plain");
  site.set("/private/secret", treePage(999, []));
  site.set("/dup-a", treePage(1000, []));
  site.set("/dup-b", treePage(1000, []));
  service = await testService(["--unsafe-allow-loopback-targets", "--crawl-host-delay-ms", "0", "--rate-limit-per-min", "10000"]);
});
afterAll(async () => {
  await service.close();
  await site.stop();
});

describe("web.crawl", () => {
  it("crawls the site from its start page: every page once, signed, robots.txt and the site boundary held, duplicates counted", async () => {
    const { status, body } = await startCrawl({ url: site.url("/"), limit: 100, max_depth: 10, sitemap: "skip" });
    expect(status).toBe(202);
    expect(body.crawl_id).toMatch(/^crawl_[0-9a-f]{32}$/);
    expect(body.status_url).toEndWith(`/v1/web/crawl/${body.crawl_id}`);
    const done = await finished(body);
    expect(done.status).toBe("completed");
    expect(done.stop_reason).toBe("frontier_empty");
    // "/", the 40 tree pages, /dup-a and /dup-b (one of them a duplicate).
    expect(done.counts).toMatchObject({ fetched: PAGES + 2, failed: 0, robots_blocked: 1, duplicates: 1 });
    expect(done.pages.length).toBe(PAGES + 2);
    expect(done.pages.every((p) => p.ok && p.attestation !== undefined)).toBe(true);
    expect(new Set(done.pages.map((p) => p.url)).size).toBe(done.pages.length);
    expect(pageHits(site, PAGES).every((h) => h === 1)).toBe(true);
    expect(site.hits("/private/secret")).toBe(0);
  }, 60_000);

  it("stops at its limit exactly, and pages through the results with a cursor", async () => {
    // Every page the site has: /dup-a and /dup-b come 7th when /p/2's links were delivered before /p/1's.
    const fetches = () => pageHits(site, PAGES).reduce((a, b) => a + b, 0) + site.hits("/") + site.hits("/dup-a") + site.hits("/dup-b");
    const before = fetches();
    const { body } = await startCrawl({ url: site.url("/"), limit: 7, max_depth: 10, sitemap: "skip" });
    const done = await finished(body);
    expect(done).toMatchObject({ status: "completed", stop_reason: "limit" });
    expect(done.counts.fetched + done.counts.failed + done.counts.duplicates).toBe(7);
    const after = fetches();
    expect(after - before).toBe(7);
    const first = await statusOf(body, "?limit=4");
    expect(first.body.pages.length).toBe(4);
    expect(first.body.more_pages).toBe(true);
    const second = await statusOf(body, `?limit=4&cursor=${first.body.next_cursor}`);
    expect(second.body.pages.length).toBe(3);
    expect(second.body.more_pages).toBe(false);
    expect(new Set([...first.body.pages, ...second.body.pages].map((p) => p.url)).size).toBe(7);
  }, 60_000);

  it("is cancelled: nothing more is claimed", async () => {
    const { body } = await startCrawl({ url: site.url("/"), limit: 50, max_depth: 10, sitemap: "skip" });
    const unknown = await service.request(`/v1/web/crawl/crawl_${"0".repeat(32)}`);
    expect(unknown.status).toBe(404);
    const cancel = await service.request(`/v1/web/crawl/${body.crawl_id}`, { method: "DELETE" });
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as Status).status).toBe("cancelled");
    await Bun.sleep(300);
    const settled = (await statusOf(body)).body;
    await Bun.sleep(300);
    const later = (await statusOf(body)).body;
    expect(later.status).toBe("cancelled");
    // Nothing is claimed after the cancel: at most the fetches then in flight land.
    expect(later.counts.fetched).toBe(settled.counts.fetched);
  }, 60_000);

  it("refuses bad input before any work: limits out of range, hostile patterns, hostile start URLs, a webhook the SSRF guard refuses", async () => {
    const hits = () => pageHits(site, PAGES).reduce((a, b) => a + b, 0) + site.hits("/");
    const before = hits();
    for (const [json, status, code] of [
      [{ url: site.url("/"), limit: 10_001 }, 400, "INVALID_REQUEST"],
      [{ url: site.url("/"), limit: 0 }, 400, "INVALID_REQUEST"],
      [{ url: site.url("/"), max_depth: 21 }, 400, "INVALID_REQUEST"],
      [{ url: site.url("/"), max_chars: 0 }, 400, "INVALID_REQUEST"],
      [{ url: `${site.url("/")}?q=${"x".repeat(20_000)}` }, 400, "INVALID_REQUEST"],
      [{ url: site.url("/"), include: Array.from({ length: 21 }, (_, i) => `^/p/${i}`) }, 400, "INVALID_REQUEST"],
      // Not RE2 (a backreference, a lookahead), a pattern whose RE2 program is too large, one that matches every path.
      [{ url: site.url("/"), include: ["(a+)+\\1"] }, 400, "PATTERN_INVALID"],
      [{ url: site.url("/"), exclude: ["(?=a)b"] }, 400, "PATTERN_INVALID"],
      [{ url: site.url("/"), include: ["((a{1,30}){1,30})"] }, 400, "PATTERN_INVALID"],
      [{ url: site.url("/"), exclude: [".*"] }, 400, "PATTERN_INVALID"],
      // Start pages the SSRF guard refuses: never sold, since the crawl could fetch nothing.
      [{ url: "file:///etc/passwd" }, 400, "URL_NOT_ALLOWED"],
      [{ url: "http://user:pw@example.com/" }, 400, "URL_NOT_ALLOWED"],
      [{ url: "http://0x7f.1/" }, 400, "URL_NOT_ALLOWED"],
      [{ url: "http://169.254.169.254/latest/meta-data/" }, 422, "TARGET_NOT_PUBLIC"],
      [{ url: "http://10.0.0.1/" }, 422, "TARGET_NOT_PUBLIC"],
      [{ url: "http://[::1]/" }, 422, "TARGET_NOT_PUBLIC"],
      [{ url: site.url("/"), webhook: "http://user:pw@example.com/hook" }, 400, "WEBHOOK_NOT_ALLOWED"],
      [{ url: site.url("/"), webhook: "file:///etc/passwd" }, 400, "WEBHOOK_NOT_ALLOWED"],
    ] as const) {
      const { status: got, body } = await startCrawl(json);
      expect({ url: json.url.slice(0, 60), status: got, error: body.error }).toEqual({ url: json.url.slice(0, 60), status, error: code });
    }
    expect(hits()).toBe(before);
  });
});
