/**
 * web/crawl's frontier on SQLite and on a real PostgreSQL, two instances on one database, each with
 * its own worker: every page of a loopback site fetched exactly once between them, a limit held
 * exactly across instances, and a URL whose instance died mid-fetch (its lease never renewed)
 * fetched again by the other once the lease lapsed, the dead instance's late delivery refused.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { crawlPgMigrations, createPgCrawlStore } from "../../src/crawl/crawl-store-pg.ts";
import { crawlMigrations, createSqliteCrawlStore } from "../../src/crawl/crawl-store-sqlite.ts";
import type { CrawlStore } from "../../src/crawl/crawl-store.ts";
import type { SiteServer } from "../support/site-server.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";
import { crawlEnd, loopbackEngine, startStoredCrawl, startWorker } from "../crawl/crawl-harness.ts";
import { pageHits, startTreeSite } from "../crawl/crawl-site.ts";

const engines = storeEngines<CrawlStore>("crawls", { sqliteMigrations: crawlMigrations, sqlite: createSqliteCrawlStore, pgMigrations: crawlPgMigrations, pg: createPgCrawlStore });
const PAGES = 60;
let site: SiteServer;
beforeAll(() => {
  // Slow enough that one instance's lanes are still busy when the other looks for work (both take part).
  site = startTreeSite(PAGES, {}, { delayMs: 20 });
});
afterAll(async () => {
  await site.stop();
});
const totalHits = () => pageHits(site, PAGES).reduce((a, b) => a + b, 0) + site.hits("/");

for (const engine of engines) {
  describe.skipIf(engine.skip)(`crawl frontier on ${engine.name}`, () => {
    it(
      "two instances crawl one site together: every page fetched exactly once, both took part",
      withInstances(engine, async ({ one, two }) => {
        const before = pageHits(site, PAGES);
        const id = await startStoredCrawl(one, { url: site.url("/"), limit: 1000, max_depth: 10, sitemap: "skip" });
        const claimedBy = new Map<string, number>();
        const count = (name: string) => ({ page: () => claimedBy.set(name, (claimedBy.get(name) ?? 0) + 1), ended: () => {} });
        const workers = [startWorker(one, loopbackEngine(), {}, { events: count("one") }), startWorker(two, loopbackEngine(), {}, { events: count("two") })];
        try {
          const row = await crawlEnd(two, id);
          expect(row).toMatchObject({ status: "completed", stopReason: "frontier_empty" });
          expect(row.counts).toMatchObject({ fetched: PAGES + 1, failed: 0, duplicates: 0 });
          expect(pageHits(site, PAGES).map((h, n) => h - before[n]!)).toEqual(Array(PAGES).fill(1));
          expect((claimedBy.get("one") ?? 0) + (claimedBy.get("two") ?? 0)).toBe(PAGES + 1);
          expect(claimedBy.get("one")).toBeGreaterThan(0);
          expect(claimedBy.get("two")).toBeGreaterThan(0);
          expect((await one.pages(id, 0, 1000)).map((p) => p.seq)).toEqual(Array.from({ length: PAGES + 1 }, (_, i) => i + 1));
        } finally {
          for (const w of workers) w.stop();
          await Promise.all(workers.map((w) => w.stopped()));
        }
      }),
      90_000,
    );

    it(
      "stops at its limit exactly across instances",
      withInstances(engine, async ({ one, two }) => {
        const before = totalHits();
        const id = await startStoredCrawl(one, { url: site.url("/"), limit: 9, max_depth: 10, sitemap: "skip" });
        const workers = [startWorker(one, loopbackEngine()), startWorker(two, loopbackEngine())];
        try {
          const row = await crawlEnd(one, id);
          expect(row).toMatchObject({ status: "completed", stopReason: "limit", used: 9 });
          await Bun.sleep(200);
          expect(totalHits() - before).toBe(9);
          expect((await two.pages(id, 0, 100)).length).toBe(9);
        } finally {
          for (const w of workers) w.stop();
          await Promise.all(workers.map((w) => w.stopped()));
        }
      }),
      90_000,
    );

    it(
      "claims in batches within the crawl's limit, oldest first, and records a batch of outcomes in order: a text given earlier in it makes a later page a duplicate, another worker's URL is lost alone",
      withInstances(engine, async ({ one, two }) => {
        const id = await startStoredCrawl(one, { url: "http://127.0.0.1:9/", limit: 4, max_depth: 10, sitemap: "skip" });
        const more = Array.from({ length: 5 }, (_, i) => ({ url: `http://127.0.0.1:9/p/${i}`, depth: 1 }));
        expect(await one.enqueue(id, more, { robotsBlocked: 0, cap: 1_000, nowMs: Date.now() })).toBe(5);
        const first = await one.claim("w1", 5_000, Date.now(), 3);
        expect(first.map((c) => c.url)).toEqual(["http://127.0.0.1:9/", "http://127.0.0.1:9/p/0", "http://127.0.0.1:9/p/1"]);
        // One unit of the limit is left: a batch of 8 asked takes one URL.
        expect((await two.claim("w2", 5_000, Date.now(), 8)).map((c) => c.url)).toEqual(["http://127.0.0.1:9/p/2"]);
        expect(await one.claim("w1", 5_000, Date.now(), 8)).toEqual([]);
        const outcomes = await two.deliver("w1", [
          { claimed: first[0]!, delivery: { kind: "page", result: '{"n":0}', textSha256: "same" } },
          { claimed: first[1]!, delivery: { kind: "page", result: '{"n":1}', textSha256: "same" } },
          { claimed: first[2]!, delivery: { kind: "error", result: '{"n":2}' } },
        ]);
        expect(outcomes).toEqual([{ kind: "delivered", pageSeq: 1 }, { kind: "duplicate" }, { kind: "delivered", pageSeq: 2 }]);
        expect(await one.deliver("w1", [{ claimed: first[0]!, delivery: { kind: "error", result: "{}" } }])).toEqual([{ kind: "lost" }]);
        const row = await one.get(id);
        expect(row?.counts).toMatchObject({ fetched: 1, failed: 1, duplicates: 1 });
        expect(row?.used).toBe(4);
        expect((await two.pages(id, 0, 10)).map((p) => p.result)).toEqual(['{"n":0}', '{"n":2}']);
      }),
      90_000,
    );

    it(
      "takes over the URL of an instance that died mid-fetch once its lease lapses; the dead instance's late delivery is refused",
      withInstances(engine, async ({ one, two }) => {
        const before = totalHits();
        const id = await startStoredCrawl(one, { url: site.url("/"), limit: 1000, max_depth: 10, sitemap: "skip" });
        // The dead instance claimed the start page and never came back (as after kill -9): no renewal, no delivery.
        const [dead, ...more] = await one.claim("dead-instance", 400, Date.now(), 8);
        expect(dead?.url).toBe(site.url("/"));
        expect(more).toEqual([]);
        expect(await two.claim("live", 5_000, Date.now(), 8)).toEqual([]);
        const worker = startWorker(two, loopbackEngine());
        try {
          const row = await crawlEnd(two, id);
          expect(row.counts.fetched).toBe(PAGES + 1);
          expect(totalHits() - before).toBe(PAGES + 1);
          expect(await one.deliver("dead-instance", [{ claimed: dead!, delivery: { kind: "error", result: "{}" } }])).toEqual([{ kind: "lost" }]);
        } finally {
          worker.stop();
          await worker.stopped();
        }
      }),
      90_000,
    );
  });
}
