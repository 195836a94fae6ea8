/**
 * One contract for the payment receipts (the replay lock every paid call takes before its work) on
 * both engines (issue 28): SQLite and a real PostgreSQL started for this file. Each test opens two
 * handles on one fresh database, as two instances would; the race case claims one authorization
 * from both at once and exactly one may win, the others seeing it in flight.
 */
import { describe, expect, it } from "bun:test";
import { createPgReceiptStore, receiptPgMigrations } from "../../src/store/receipts-pg.ts";
import { type Instances, storeEngines } from "../support/store-engines.ts";
import { createReceiptStore, receiptMigrations, type ReceiptStore, type ReserveInput } from "../../src/store/receipts.ts";

const engines = storeEngines<ReceiptStore>("receipts", {
  sqliteMigrations: receiptMigrations,
  sqlite: createReceiptStore,
  pgMigrations: receiptPgMigrations,
  pg: createPgReceiptStore,
});

const now = new Date("2026-11-27T12:00:00.000Z");
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const nonce = `0x${"AB".repeat(32)}`;
const input = (id: string, overrides: Partial<ReserveInput> = {}): ReserveInput => ({
  id, network: "eip155:8453", asset: "0xAsset", payTo: "0xPayTo", payer: "0xPayer", amount: "5000",
  nonce, validBefore: 1_900_000_000, requestId: `req_${id}`, operationId: "web.read", now, ...overrides,
});
const ctx = (requestId: string) => ({ requestId, operationId: "web.read", settleRequest: '{"kept":true}', now });

for (const engine of engines) {
  describe.skipIf(engine.skip)(`payment receipts on ${engine.name}`, () => {
    const withInstances = (test: (i: Instances<ReceiptStore>) => Promise<void>) => async () => {
      const instances = await engine.open();
      try {
        await test(instances);
      } finally {
        await instances.close();
      }
    };

    it(
      "reserves one authorization once: the other instance sees it in flight; released or failed ones may be retaken, settled ones never",
      withInstances(async ({ one, two }) => {
        const first = await one.reserve(input("pay_1"));
        expect(first).toMatchObject({ ok: true, receipt: { id: "pay_1", state: "reserved", nonce: nonce.toLowerCase(), validBefore: 1_900_000_000, createdAt: now.toISOString() } });
        expect(await two.reserve(input("pay_2", { payer: "0xPAYER" }))).toMatchObject({ ok: false, existing: { id: "pay_1", state: "reserved" } });
        expect(await two.release("pay_1", later(1))).toBe(true);
        expect((await one.find(nonce))?.state).toBe("unused");
        expect(await two.reserve(input("pay_3", { amount: "6000", now: later(2) }))).toMatchObject({ ok: true, receipt: { id: "pay_3", amount: "6000", state: "reserved" } });
        expect(await one.claimForSettlement("pay_3", ctx("req_x"))).toBe(true);
        expect(await two.claimForSettlement("pay_3", ctx("req_x"))).toBe(false);
        expect(await one.release("pay_3", later(3))).toBe(false);
        await two.recordSubmitted("pay_3", "0xTX1", later(3));
        expect(await one.markFailed("pay_3", "invalid_exact_evm_insufficient_balance", null, later(4))).toBe(true);
        expect(await one.get("pay_3")).toMatchObject({ state: "failed", transaction: "0xTX1", reason: "invalid_exact_evm_insufficient_balance" });
        expect((await two.reserve(input("pay_4", { now: later(5) }))).ok).toBe(true);
        expect(await two.claimForSettlement("pay_4", ctx("req_4"))).toBe(true);
        expect(await one.markSettled("pay_4", "0xTX2", later(6))).toBe(true);
        expect(await two.reserve(input("pay_5"))).toMatchObject({ ok: false, existing: { state: "settled", transaction: "0xTX2" } });
        expect(await one.markFailed("pay_4", "late", null, later(7))).toBe(false);
        expect(await two.get("pay_4")).toMatchObject({ state: "settled", reason: null, settledAt: later(6).toISOString(), requestId: "req_4" });
      }),
      30_000,
    );

    it(
      "answers the payment lookup the same from either instance: by id, transaction, nonce in any case, key and request",
      withInstances(async ({ one, two }) => {
        await one.reserve(input("pay_a"));
        await one.claimForSettlement("pay_a", ctx("req_pay_a"));
        await one.markSettled("pay_a", "0xAbCd", later(1));
        for (const store of [one, two]) {
          expect((await store.find("pay_a"))?.id).toBe("pay_a");
          expect((await store.find("0xAbCd"))?.id).toBe("pay_a");
          expect((await store.find(nonce.toUpperCase().replace("0X", "0x")))?.id).toBe("pay_a");
          expect((await store.getByKey(`eip155:8453|0xasset|0xpayer|${nonce.toLowerCase()}`))?.id).toBe("pay_a");
          expect((await store.findByRequest("req_pay_a"))?.id).toBe("pay_a");
          expect(await store.find("0xnothing")).toBeUndefined();
          expect(await store.get("pay_none")).toBeUndefined();
        }
      }),
      30_000,
    );

    it(
      "lists pending settlements with the kept request, and reservations older than a time",
      withInstances(async ({ one, two }) => {
        await one.reserve(input("pay_p", { nonce: "0x01" }));
        await one.claimForSettlement("pay_p", ctx("req_p"));
        await one.reserve(input("pay_old", { nonce: "0x02", now }));
        await one.reserve(input("pay_new", { nonce: "0x03", now: later(60) }));
        const pending = await two.listPending();
        expect(pending.map((p) => [p.receipt.id, p.settleRequest])).toEqual([["pay_p", '{"kept":true}']]);
        expect((await two.listStaleReserved(later(30))).map((r) => r.id)).toEqual(["pay_old"]);
        expect(await two.release("pay_p", later(61), "pending")).toBe(true);
        expect(await two.listPending()).toEqual([]);
      }),
      30_000,
    );

    it(
      "gives one authorization to exactly one of 24 concurrent reservations split across the instances",
      withInstances(async ({ one, two }) => {
        const results = await Promise.all(Array.from({ length: 24 }, (_, n) => (n % 2 === 0 ? one : two).reserve(input(`pay_race_${n}`))));
        const winners = results.filter((r) => r.ok);
        expect(winners).toHaveLength(1);
        const winner = winners[0]!.ok ? winners[0]!.receipt.id : "";
        for (const r of results) if (!r.ok) expect(r.existing).toMatchObject({ id: winner, state: "reserved" });
        // Of concurrent settlement claims on the winner, one again.
        const claims = await Promise.all(Array.from({ length: 8 }, (_, n) => (n % 2 === 0 ? one : two).claimForSettlement(winner, ctx("req_race"))));
        expect(claims.filter(Boolean)).toHaveLength(1);
      }),
      30_000,
    );

    it(
      "lets exactly one of many concurrent retakes have a released authorization",
      withInstances(async ({ one, two }) => {
        await one.reserve(input("pay_first"));
        await one.release("pay_first", later(1));
        const results = await Promise.all(Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? one : two).reserve(input(`pay_retake_${n}`, { now: later(2) }))));
        expect(results.filter((r) => r.ok)).toHaveLength(1);
      }),
      30_000,
    );
  });
}
