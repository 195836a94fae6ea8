/**
 * The refund ledger's exactly-once steps on both engines (issue 28), over a table with the refund
 * columns the jobs table keeps (made here, so the contract does not wait for the jobs family's own
 * PostgreSQL engine): claim once (also when two instances race), record the signed transaction only
 * under the claim, mark it paid only for that transaction, release only what was seen.
 */
import { describe, expect, it } from "bun:test";
import { createRefundLedger, type RefundLedger, type RefundLedgerTable } from "../../src/refunds/ledger.ts";
import { createPgRefundLedger } from "../../src/refunds/ledger-pg.ts";
import { storeEngines, withInstances as openedOn } from "../support/store-engines.ts";

const table: RefundLedgerTable = { table: "jobs", settled: "settled_at IS NOT NULL", orderBy: "finished_at" };
const schema = `CREATE TABLE jobs (
  id TEXT PRIMARY KEY, network TEXT, payer TEXT, price_micros INTEGER NOT NULL, settled_at TEXT, finished_at TEXT,
  refund_state TEXT, refund_reason TEXT, refund_note TEXT, refund_claim TEXT, refund_claimed_at TEXT, refund_tx TEXT, refund_raw TEXT,
  refund_attempts INTEGER NOT NULL DEFAULT 0, refund_error TEXT, refund_paid_at TEXT)`;
const seed = `INSERT INTO jobs (id, network, payer, price_micros, settled_at, finished_at, refund_state) VALUES
  ('j2', 'eip155:8453', '0xb', 20, '2026-01-01', '2026-01-02', 'due'),
  ('j1', 'eip155:8453', '0xa', 10, '2026-01-01', '2026-01-01', 'due'),
  ('j3', 'algorand', 'ALGO', 30, '2026-01-01', '2026-01-03', 'due'),
  ('j4', 'eip155:8453', '0xc', 40, NULL, '2026-01-04', 'due'),
  ('j5', 'eip155:8453', '0xd', 50, '2026-01-01', '2026-01-05', 'paid')`;

interface Instances {
  readonly one: RefundLedger;
  readonly two: RefundLedger;
  /** The row's refund columns, read back. */
  row(id: string): Promise<Record<string, unknown>>;
}

/** One instance's ledger, and the row's refund columns read back through its own handle. */
interface LedgerHandle {
  readonly ledger: RefundLedger;
  row(id: string): Promise<Record<string, unknown>>;
}

const migrations = [{ id: "1", sql: `${schema}; ${seed}` }];
const engines = storeEngines<LedgerHandle>("ledger", {
  sqliteMigrations: migrations,
  sqlite: (db) => ({
    ledger: createRefundLedger(db, table),
    row: async (id) => ({ ...db.query<Record<string, unknown>, [string]>("SELECT refund_state, refund_tx, refund_error, refund_attempts FROM jobs WHERE id = ?").get(id) }),
  }),
  pgMigrations: migrations,
  pg: (sql) => ({
    ledger: createPgRefundLedger(sql, table),
    row: async (id) => ({ ...(await sql`SELECT refund_state, refund_tx, refund_error, refund_attempts FROM jobs WHERE id = ${id}`)[0] }),
  }),
});

const at = new Date("2026-11-27T12:00:00.000Z");

for (const engine of engines) {
  describe.skipIf(engine.skip)(`the refund ledger on ${engine.name}`, () => {
    const withInstances = (test: (i: Instances) => Promise<void>) => openedOn(engine, ({ one, two }) => test({ one: one.ledger, two: two.ledger, row: one.row }));

    it(
      "lists the unpaid refunds of settled rows on the given networks, in order",
      withInstances(async ({ two }) => {
        expect((await two.refundWork(["eip155:8453"])).map((w) => [w.id, w.payer, w.priceMicros, w.state, w.signed])).toEqual([
          ["j1", "0xa", 10, "due", null],
          ["j2", "0xb", 20, "due", null],
        ]);
        expect((await two.refundWork(["algorand", "eip155:8453"])).map((w) => w.id)).toEqual(["j1", "j2", "j3"]);
      }),
      30_000,
    );

    it(
      "claims once, records only under the claim, pays only the recorded transaction, releases only what was seen",
      withInstances(async ({ one, two, row }) => {
        expect(await one.claimRefund("j1", "claim-a", at)).toBe(true);
        expect(await two.claimRefund("j1", "claim-b", at)).toBe(false);
        expect(await one.claimRefund("j4", "claim-a", at)).toBe(false); // its payment never settled
        expect(await two.recordRefundTx("j1", "claim-b", { transaction: "0xother", raw: "raw" })).toBe(false);
        expect(await one.recordRefundTx("j1", "claim-a", { transaction: "0xtx", raw: "raw" })).toBe(true);
        expect(await one.recordRefundTx("j1", "claim-a", { transaction: "0xtx2", raw: "raw2" })).toBe(false);
        const [work] = await two.refundWork(["eip155:8453"]);
        expect(work).toMatchObject({ id: "j1", state: "sending", claim: "claim-a", claimedAt: at.toISOString(), signed: { transaction: "0xtx", raw: "raw" } });
        expect(await two.releaseRefund("j1", { claim: "claim-a", transaction: null }, "stale")).toBe(false);
        await two.noteRefundError("j1", "awaiting confirmation");
        expect(await two.markRefundSent("j1", "0xother", at)).toBe(false);
        expect(await two.markRefundSent("j1", "0xtx", at)).toBe(true);
        expect(await row("j1")).toEqual({ refund_state: "paid", refund_tx: "0xtx", refund_error: null, refund_attempts: 1 });

        expect(await one.claimRefund("j2", "claim-c", at)).toBe(true);
        expect(await two.releaseRefund("j2", { claim: "claim-c", transaction: null }, "cannot sign")).toBe(true);
        expect(await row("j2")).toMatchObject({ refund_state: "due", refund_error: "cannot sign" });
      }),
      30_000,
    );

    it(
      "gives a refund to exactly one of many concurrent claims from two instances",
      withInstances(async ({ one, two }) => {
        const claims = await Promise.all(Array.from({ length: 16 }, (_, n) => (n % 2 === 0 ? one : two).claimRefund("j3", `claim-${n}`, at)));
        expect(claims.filter(Boolean)).toHaveLength(1);
      }),
      30_000,
    );
  });
}
