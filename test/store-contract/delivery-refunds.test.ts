/**
 * Delivery refunds (refunds/delivery-refunds.ts) on both engines: a remainder recorded once per
 * receipt, read back, and worked by the refund ledger's steps like any other refund due.
 * @see issue 42 (pay for what is delivered)
 */
import { describe, expect, it } from "bun:test";
import { createDeliveryRefunds, deliveryRefundMigrations, type DeliveryRefunds, deliveryRefundPgMigrations } from "../../src/refunds/delivery-refunds.ts";
import { createPgDeliveryRefunds } from "../../src/refunds/delivery-refunds-pg.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";

const engines = storeEngines<DeliveryRefunds>("delivery refunds", {
  sqliteMigrations: deliveryRefundMigrations,
  sqlite: (db) => createDeliveryRefunds(db),
  pgMigrations: deliveryRefundPgMigrations,
  pg: (sql) => createPgDeliveryRefunds(sql),
});

const refund = {
  id: "pay_1",
  operationId: "web.search",
  requestId: "req_1",
  network: "eip155:8453",
  payer: "0xabc",
  transaction: "0xtx",
  quotedMicros: 17_000,
  priceMicros: 6_000,
  createdAt: new Date("2026-12-07T00:00:00.000Z"),
};

for (const engine of engines) {
  describe.skipIf(engine.skip)(`delivery refunds on ${engine.name}`, () => {
    it(
      "records a remainder once per receipt, and the ledger claims it for exactly one instance",
      withInstances(engine, async ({ one, two }) => {
        await one.recordDue(refund);
        await two.recordDue({ ...refund, priceMicros: 9_999 });
        expect(await two.list()).toEqual([{ ...refund, state: "due", refundTx: null, refundError: null, refundNote: null, paidAt: null }]);
        expect((await one.refundWork(["eip155:8453"])).map((w) => [w.id, w.payer, w.priceMicros])).toEqual([["pay_1", "0xabc", 6_000]]);
        expect(await one.refundWork(["algorand"])).toEqual([]);
        const at = new Date("2026-12-07T00:01:00.000Z");
        expect(await one.claimRefund("pay_1", "a", at)).toBe(true);
        expect(await two.claimRefund("pay_1", "b", at)).toBe(false);
        expect(await one.recordRefundTx("pay_1", "a", { transaction: "0xrefund", raw: "raw" })).toBe(true);
        expect(await one.markRefundSent("pay_1", "0xrefund", at)).toBe(true);
        expect((await two.list())[0]!.state).toBe("paid");
      }),
      30_000,
    );

    it(
      "the operator marks a due or sending refund paid by hand, once (tollbooth refunds --mark-paid)",
      withInstances(engine, async ({ one, two }) => {
        await one.recordDue(refund);
        await one.recordDue({ ...refund, id: "pay_2" });
        const at = new Date("2026-12-07T00:02:00.000Z");
        expect(await two.markRefundPaid("pay_1", "BASE-TX-1", at)).toBe(true);
        expect(await one.markRefundPaid("pay_1", "again", at)).toBe(false);
        expect(await one.markRefundPaid("pay_none", "x", at)).toBe(false);
        // One being sent (its transaction signed): marked paid, its claim and raw bytes dropped, never re-sent.
        expect(await one.claimRefund("pay_2", "a", at)).toBe(true);
        expect(await one.recordRefundTx("pay_2", "a", { transaction: "0xrefund2", raw: "raw" })).toBe(true);
        expect(await two.markRefundPaid("pay_2", "checked by hand", at)).toBe(true);
        expect(await one.refundWork(["eip155:8453"])).toEqual([]);
        const rows = await one.list();
        expect(rows.map((r) => [r.id, r.state, r.refundNote, r.refundTx, r.paidAt !== null])).toEqual([
          ["pay_1", "paid", "BASE-TX-1", null, true],
          ["pay_2", "paid", "checked by hand", "0xrefund2", true],
        ]);
      }),
      30_000,
    );
  });
}
