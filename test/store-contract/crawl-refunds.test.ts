/**
 * The pages a paid crawl did not read are owed back (issue 42, "Pay for what is delivered"), on SQLite
 * and on a real PostgreSQL, two instances on one database: whichever instance ends the crawl (the
 * worker's finish, a cancel), the refund is computed in the ending statement and written to the
 * delivery refunds ledger exactly once under the receipt id, even when both instances record it and
 * sweep at once; one an instance left unwritten (stopped in between) is written by the other's sweep;
 * a crawl that read its whole limit owes nothing.
 * @see issue 42
 */
import { describe, expect, it } from "bun:test";
import { createCrawlRefunds, type CrawlRefunds } from "../../src/crawl/crawl-refund.ts";
import { crawlPgMigrations, createPgCrawlStore } from "../../src/crawl/crawl-store-pg.ts";
import { crawlMigrations, createSqliteCrawlStore } from "../../src/crawl/crawl-store-sqlite.ts";
import type { CrawlPaid, CrawlStore } from "../../src/crawl/crawl-store.ts";
import { createPgDeliveryRefunds } from "../../src/refunds/delivery-refunds-pg.ts";
import { createDeliveryRefunds, deliveryRefundMigrations, deliveryRefundPgMigrations, type DeliveryRefunds } from "../../src/refunds/delivery-refunds.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";
import { startStoredCrawl } from "../crawl/crawl-harness.ts";

interface Instance {
  readonly crawls: CrawlStore;
  readonly ledger: DeliveryRefunds;
  readonly refunds: CrawlRefunds;
}
const instance = (crawls: CrawlStore, ledger: DeliveryRefunds): Instance => ({ crawls, ledger, refunds: createCrawlRefunds({ store: crawls, ledger, now: () => new Date() }) });
const engines = storeEngines<Instance>("crawl refunds", {
  sqliteMigrations: [...crawlMigrations, ...deliveryRefundMigrations],
  sqlite: (db) => instance(createSqliteCrawlStore(db), createDeliveryRefunds(db)),
  pgMigrations: [...crawlPgMigrations, ...deliveryRefundPgMigrations],
  pg: (sql) => instance(createPgCrawlStore(sql), createPgDeliveryRefunds(sql)),
});

let receipts = 0;
const paidOf = (micros: number): CrawlPaid => ({
  paymentId: `rcpt_crawl_${++receipts}_${Date.now()}`,
  payer: "0xBuyEr000000000000000000000000000000000001",
  network: "eip155:84532",
  transaction: "0xabc",
  operationId: "web.crawl",
  requestId: "req_1",
  micros,
});
const start = "http://127.0.0.1:9/";

/** Claims and delivers `pages` read pages and `errors` inline errors on `crawls` (no fetch: the store alone). */
async function deliver(crawls: CrawlStore, pages: number, errors = 0): Promise<void> {
  for (let n = 0; n < pages + errors; n++) {
    const [claimed] = await crawls.claim("w", 5_000, Date.now(), 1);
    if (!claimed) throw new Error("nothing to claim");
    const [outcome] = await crawls.deliver("w", [{ claimed, delivery: n < pages ? { kind: "page", result: "{}", textSha256: `t${n}` } : { kind: "error", result: "{}" } }]);
    expect(outcome?.kind).toBe("delivered");
  }
}

async function enqueued(crawls: CrawlStore, id: string, count: number): Promise<void> {
  const entries = Array.from({ length: count }, (_, i) => ({ url: `${start}p${i}`, depth: 1 }));
  await crawls.enqueue(id, entries, { robotsBlocked: 0, cap: 100, nowMs: Date.now() });
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`crawl refunds on ${engine.name}`, () => {
    it(
      "a crawl ended by both instances at once records the undelivered share once (inline errors are not read pages)",
      withInstances(engine, async ({ one, two }) => {
        const paid = paidOf(12_000);
        const id = await startStoredCrawl(one.crawls, { url: start, limit: 4, sitemap: "skip" }, { paid });
        await enqueued(one.crawls, id, 1);
        await deliver(one.crawls, 1, 1);
        const [a, b] = await Promise.all([one.crawls.finish(Date.now(), id), two.crawls.finish(Date.now(), id)]);
        const ended = [...a, ...b];
        expect(ended.length).toBe(1);
        expect(ended[0]).toMatchObject({ status: "completed", refundMicros: 9_000, refundRecorded: false });
        await Promise.all([one.refunds.record(ended[0]!), two.refunds.record((await two.crawls.get(id))!), one.refunds.sweep(), two.refunds.sweep()]);
        expect(await two.ledger.list()).toMatchObject([{ id: paid.paymentId, operationId: "web.crawl", payer: paid.payer, quotedMicros: 12_000, priceMicros: 9_000, state: "due" }]);
        expect((await one.crawls.get(id))?.refundRecorded).toBe(true);
        expect(await two.crawls.unrecordedRefunds()).toEqual([]);
      }),
      60_000,
    );

    it(
      "a crawl cancelled from both instances at once records the rest once",
      withInstances(engine, async ({ one, two }) => {
        const paid = paidOf(10_000);
        const id = await startStoredCrawl(one.crawls, { url: start, limit: 5, sitemap: "skip" }, { paid });
        await enqueued(one.crawls, id, 3);
        await deliver(two.crawls, 2);
        const at = new Date();
        const cancelled = await Promise.all([one.crawls.cancel(id, at), two.crawls.cancel(id, at)]);
        expect(cancelled.filter(Boolean).length).toBe(1);
        const row = (await one.crawls.get(id))!;
        expect(row).toMatchObject({ status: "cancelled", refundMicros: 6_000 });
        await Promise.all([one.refunds.record(row), two.refunds.record(row)]);
        expect(await one.ledger.list()).toMatchObject([{ id: paid.paymentId, quotedMicros: 10_000, priceMicros: 6_000 }]);
      }),
      60_000,
    );

    it(
      "a refund an instance left unwritten (it stopped after ending the crawl) is written by the other's sweep",
      withInstances(engine, async ({ one, two }) => {
        const paid = paidOf(3_000);
        const id = await startStoredCrawl(one.crawls, { url: start, limit: 3, sitemap: "skip" }, { paid });
        await deliver(one.crawls, 1);
        expect((await one.crawls.finish(Date.now(), id)).length).toBe(1);
        expect((await two.crawls.unrecordedRefunds()).map((r) => r.id)).toEqual([id]);
        await two.refunds.sweep();
        expect(await one.ledger.list()).toMatchObject([{ id: paid.paymentId, priceMicros: 2_000 }]);
        expect(await one.crawls.unrecordedRefunds()).toEqual([]);
      }),
      60_000,
    );

    it(
      "a crawl that read nothing (failed) owes all it was paid; one past its deadline owes the pages it had no time for",
      withInstances(engine, async ({ one, two }) => {
        const nothing = paidOf(6_000);
        const failed = await startStoredCrawl(one.crawls, { url: start, limit: 2, sitemap: "skip" }, { paid: nothing });
        await deliver(one.crawls, 0, 1);
        expect(await one.crawls.finish(Date.now(), failed)).toMatchObject([{ status: "failed", refundMicros: 6_000 }]);
        const late = paidOf(9_000);
        const slow = await startStoredCrawl(one.crawls, { url: `${start}slow/`, limit: 3, sitemap: "skip" }, { paid: late, deadlineMs: 60_000 });
        await enqueued(one.crawls, slow, 2);
        await deliver(one.crawls, 1);
        expect(await two.crawls.finish(Date.now() + 120_000, slow)).toMatchObject([{ status: "completed", stopReason: "deadline", refundMicros: 6_000 }]);
        await two.refunds.sweep();
        const due = await one.ledger.list();
        expect(due.map((r) => [r.id, r.priceMicros]).sort()).toEqual([[nothing.paymentId, 6_000], [late.paymentId, 6_000]].sort());
      }),
      60_000,
    );

    it(
      "a crawl that read its whole limit owes nothing; an unpaid crawl records nothing",
      withInstances(engine, async ({ one, two }) => {
        const full = await startStoredCrawl(one.crawls, { url: start, limit: 1, sitemap: "skip" }, { paid: paidOf(3_000) });
        await deliver(one.crawls, 1);
        const unpaid = await startStoredCrawl(one.crawls, { url: start, limit: 2, sitemap: "skip" });
        await deliver(one.crawls, 1);
        const ended = [...(await two.crawls.finish(Date.now(), full)), ...(await two.crawls.finish(Date.now(), unpaid))];
        expect(ended.map((r) => [r.stopReason, r.refundMicros])).toEqual([
          ["limit", 0],
          ["frontier_empty", null],
        ]);
        for (const row of ended) await two.refunds.record(row);
        await one.refunds.sweep();
        expect(await one.ledger.list()).toEqual([]);
      }),
      60_000,
    );
  });
}
