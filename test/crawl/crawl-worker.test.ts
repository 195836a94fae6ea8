/**
 * The crawl worker's guards and manners against loopback servers: a crawled page's links into
 * private space (127.0.0.1, 169.254.169.254, a name resolving there) are never connected to;
 * a 429 with Retry-After is asked again only after it, and delivered once; robots.txt's
 * Crawl-delay spaces the fetches; the webhook's POSTs are signed (checked with the JWKS) and a
 * webhook that is down is retried without holding the crawl up.
 * @see issue 42
 */
import { afterAll, describe, expect, it } from "bun:test";
import { flattenedVerify, createLocalJWKSet } from "jose";
import { openStore } from "../../src/database.ts";
import { createCrawlWebhooks, WEBHOOK_SIGNATURE_HEADER } from "../../src/crawl/crawl-webhook.ts";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { createWebEngine } from "../../src/web/engine.ts";
import { type Connector, createPinnedConnector } from "../../src/web/fetch/http-connector.ts";
import { createStaticResolver } from "../../src/web/fetch/resolver.ts";
import { crawlEnd, loopbackEngine, startStoredCrawl, startWorker, USER_AGENT } from "./crawl-harness.ts";
import { treePage } from "./crawl-site.ts";

const ORIGIN_ADDRESS = "93.184.216.34";
const stores = [openStore(":memory:")];
const servers: { stop(force?: boolean): unknown }[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const s of servers) await s.stop(true);
});

/** A loopback server whose answers a test writes; every hit recorded with its time. */
function serve(handler: (path: string, hit: number) => Response) {
  const hits: { path: string; at: number }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      hits.push({ path, at: performance.now() });
      return handler(path, hits.filter((h) => h.path === path).length);
    },
  });
  servers.push(server);
  const port = server.port as number;
  return { url: (path: string) => `http://127.0.0.1:${port}${path}`, port, hits, server };
}
const html = (body: string, status = 200, headers: Record<string, string> = {}) => new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", ...headers } });

describe("crawl worker", () => {
  it("never connects to a private address a crawled page links to (127.0.0.1, 169.254.169.254, a name resolving there)", async () => {
    const site = serve((path) =>
      path === "/"
        ? html(treePage(0, ["http://127.0.0.1/admin", "http://169.254.169.254/latest/meta-data/", "http://metadata.test/computeMetadata/v1/", "http://10.0.0.5/", "/ok"]))
        : path === "/ok"
          ? html(treePage(1, []))
          : new Response("User-agent: *\nAllow: /\n"),
    );
    const attempts: { address: string; url: string }[] = [];
    const real = createPinnedConnector();
    const connector: Connector = (request) => {
      attempts.push({ address: request.address, url: request.url.href });
      if (request.address !== ORIGIN_ADDRESS) return Promise.reject(new Error(`test connector refused ${request.address}`));
      return real({ ...request, address: "127.0.0.1", port: site.port });
    };
    // Production mode: no loopback switch; site.test is a public address routed to the loopback site.
    const web = createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: false, connector, resolver: createStaticResolver({ "site.test": [ORIGIN_ADDRESS], "metadata.test": ["169.254.169.254"] }) });
    const store = stores[0]!.crawls;
    const id = await startStoredCrawl(store, { url: "http://site.test/", limit: 50, max_depth: 3, same_site: false, sitemap: "skip" });
    const worker = startWorker(store, web);
    try {
      const row = await crawlEnd(store, id);
      expect(row.counts.fetched).toBe(2);
      expect(attempts.every((a) => a.address === ORIGIN_ADDRESS)).toBe(true);
      expect(attempts.map((a) => new URL(a.url).pathname).sort()).toEqual(["/", "/ok", "/robots.txt"]);
      // Refused before any fetch: counted, never a page.
      expect(row.counts.robots_blocked + row.counts.failed).toBe(4);
    } finally {
      worker.stop();
      await worker.stopped();
    }
  }, 60_000);

  it("sleeps while no crawl runs and takes one up at once when woken (a crawl released on this instance)", async () => {
    const site = serve((path) => (path === "/" ? html(treePage(0, ["/p/1"])) : path === "/p/1" ? html(treePage(1, [])) : new Response("User-agent: *\nAllow: /\n")));
    const store = stores[0]!.crawls;
    const worker = startWorker(store, loopbackEngine(), { idleMs: 60_000, maxIdleMs: 60_000 });
    try {
      await Bun.sleep(100);
      const id = await startStoredCrawl(store, { url: site.url("/"), limit: 10, sitemap: "skip" });
      await Bun.sleep(300);
      // Asleep: the crawl released behind its back waits (the sleep would last a minute).
      expect((await store.get(id))?.status).toBe("queued");
      expect(site.hits.length).toBe(0);
      worker.wake();
      const row = await crawlEnd(store, id, 10_000);
      expect(row).toMatchObject({ status: "completed", counts: { fetched: 2 } });
    } finally {
      worker.stop();
      await worker.stopped();
    }
  }, 30_000);

  it("asks a page that answered 429 again only after its Retry-After, and delivers it once", async () => {
    const site = serve((path, hit) => {
      if (path === "/") return html(treePage(0, ["/busy"]));
      if (path === "/busy") return hit === 1 ? html("slow down", 429, { "retry-after": "1" }) : html(treePage(1, []));
      return new Response("User-agent: *\nAllow: /\n");
    });
    const store = stores[0]!.crawls;
    const id = await startStoredCrawl(store, { url: site.url("/"), limit: 10, sitemap: "skip" });
    const worker = startWorker(store, loopbackEngine());
    try {
      const row = await crawlEnd(store, id);
      expect(row.counts).toMatchObject({ fetched: 2, failed: 0 });
      const busy = site.hits.filter((h) => h.path === "/busy");
      expect(busy.length).toBe(2);
      expect(busy[1]!.at - busy[0]!.at).toBeGreaterThanOrEqual(950);
      expect((await store.pages(id, 0, 10)).length).toBe(2);
    } finally {
      worker.stop();
      await worker.stopped();
    }
  }, 60_000);

  it("spaces its fetches from one host by robots.txt's Crawl-delay", async () => {
    const site = serve((path) => {
      if (path === "/robots.txt") return new Response("User-agent: *\nCrawl-delay: 1\nAllow: /\n");
      const n = Number(path.slice(3) || "0");
      return html(treePage(n, n < 2 ? [`/p/${n + 1}`] : []));
    });
    const store = stores[0]!.crawls;
    const id = await startStoredCrawl(store, { url: site.url("/p/0"), limit: 10, sitemap: "skip" });
    const worker = startWorker(store, loopbackEngine());
    try {
      await crawlEnd(store, id);
      const pages = site.hits.filter((h) => h.path.startsWith("/p/"));
      expect(pages.length).toBe(3);
      for (let i = 1; i < pages.length; i++) expect(pages[i]!.at - pages[i - 1]!.at).toBeGreaterThanOrEqual(950);
    } finally {
      worker.stop();
      await worker.stopped();
    }
  }, 60_000);

  it("posts signed events to the webhook, retrying one that is down, without holding the crawl up", async () => {
    const received: { body: string; signature: string }[] = [];
    const hook = serve(() => new Response("ok"));
    hook.server.reload({
      fetch: async (request) => {
        const body = await request.text();
        hook.hits.push({ path: "/hook", at: performance.now() });
        // Down for its first two calls.
        if (hook.hits.length <= 2) return new Response("down", { status: 503 });
        received.push({ body, signature: request.headers.get(WEBHOOK_SIGNATURE_HEADER) ?? "" });
        return new Response("ok");
      },
    });
    const site = serve((path) => (path === "/" ? html(treePage(0, ["/a"])) : path === "/a" ? html(treePage(1, [])) : new Response("User-agent: *\nAllow: /\n")));
    const keys = await openEvidenceKeys(":memory:");
    const webhooks = createCrawlWebhooks({ keys, log: createMemoryLogger(), now: () => new Date(), allowLoopbackTargets: true, retryDelaysMs: [200, 200, 200] });
    const store = stores[0]!.crawls;
    const id = await startStoredCrawl(store, { url: site.url("/"), limit: 10, sitemap: "skip", webhook: hook.url("/hook") });
    const worker = startWorker(store, loopbackEngine(), {}, { events: webhooks });
    try {
      const row = await crawlEnd(store, id);
      expect(row.status).toBe("completed");
      await webhooks.idle();
      const events = received.map((r) => JSON.parse(r.body) as { event: string; crawl_id: string });
      expect(events.map((e) => e.event).sort()).toEqual(["completed", "page", "page"]);
      expect(events.every((e) => e.crawl_id === id)).toBe(true);
      const jwks = createLocalJWKSet(await keys.jwks());
      for (const r of received) {
        const [protectedHeader, , signature] = r.signature.split(".");
        // Detached (RFC 7515 appendix F): the body, base64url-encoded, is the payload.
        const verified = await flattenedVerify({ protected: protectedHeader!, payload: Buffer.from(r.body).toString("base64url"), signature: signature! }, jwks);
        expect(new TextDecoder().decode(verified.payload)).toBe(r.body);
      }
      // A forged body does not verify.
      const [p, , s] = received[0]!.signature.split(".");
      expect(flattenedVerify({ protected: p!, payload: Buffer.from(`${received[0]!.body} `).toString("base64url"), signature: s! }, jwks)).rejects.toThrow();
    } finally {
      worker.stop();
      webhooks.stop();
      await worker.stopped();
    }
  }, 60_000);

  it("does not post to a webhook whose address the SSRF guard refuses (a loopback address without the test switch)", async () => {
    const hook = serve(() => new Response("ok"));
    const log = createMemoryLogger();
    const webhooks = createCrawlWebhooks({ keys: await openEvidenceKeys(":memory:"), log, now: () => new Date(), allowLoopbackTargets: false, retryDelaysMs: [10] });
    const row = { id: "crawl_x", status: "completed", request: { url: "https://example.com/", webhook: hook.url("/hook") }, counts: {} } as never;
    webhooks.ended(row);
    await webhooks.idle();
    expect(hook.hits.length).toBe(0);
    expect(log.lines.some((l) => String(l.msg ?? l.message).includes("SSRF"))).toBe(true);
  });
});
