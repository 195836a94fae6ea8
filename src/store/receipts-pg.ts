/**
 * @module store/receipts-pg — the payment table family on PostgreSQL, shared by every instance. The
 * replay lock is one statement: `INSERT … ON CONFLICT (payment_key) DO UPDATE … WHERE state IN
 * ('unused', 'failed') RETURNING` takes a new authorization or retakes one that moved nothing, so of
 * any number of instances reserving one payment at once exactly one gets the row; the others read
 * it and answer as for a payment in flight. Every later transition is a conditional UPDATE, as on
 * SQLite. Timestamps stay ISO text, so both engines hand callers the same strings and orderings.
 */
import type { Migration } from "./db.ts";
import type { Sql } from "./postgres.ts";
import { type Receipt, receiptColumns, type ReceiptRow, type ReceiptStore, reservationOf, toReceipt } from "./receipts.ts";

/** Same ids as the SQLite migrations (receipts.ts). */
export const receiptPgMigrations: readonly Migration[] = [
  {
    id: "0200_payment_receipts",
    sql: `
CREATE TABLE payment_receipts (
  id TEXT PRIMARY KEY,
  payment_key TEXT NOT NULL UNIQUE,
  network TEXT NOT NULL,
  asset TEXT NOT NULL,
  pay_to TEXT NOT NULL,
  payer TEXT NOT NULL,
  amount TEXT NOT NULL,
  nonce TEXT NOT NULL,
  transaction_id TEXT,
  state TEXT NOT NULL CHECK (state IN ('reserved', 'pending', 'settled', 'failed', 'unused')),
  reason TEXT,
  request_id TEXT,
  operation_id TEXT,
  valid_before BIGINT,
  settle_request TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  settled_at TEXT
);
CREATE INDEX payment_receipts_transaction ON payment_receipts (transaction_id);
CREATE INDEX payment_receipts_nonce ON payment_receipts (nonce);
CREATE INDEX payment_receipts_state ON payment_receipts (state, updated_at);
CREATE INDEX payment_receipts_request ON payment_receipts (request_id);
`,
  },
];

export function createPgReceiptStore(sql: Sql): ReceiptStore {
  const one = async (rows: Promise<ReceiptRow[]>): Promise<Receipt | undefined> => {
    const [row] = await rows;
    return row ? toReceipt(row) : undefined;
  };
  const byKey = (key: string) => one(sql<ReceiptRow[]>`SELECT ${sql.unsafe(receiptColumns)} FROM payment_receipts WHERE payment_key = ${key}`);
  const byReference = (tx: string, nonce: string, id: string) =>
    one(sql<ReceiptRow[]>`SELECT ${sql.unsafe(receiptColumns)} FROM payment_receipts WHERE transaction_id = ${tx} OR nonce = ${nonce} OR id = ${id} ORDER BY updated_at DESC LIMIT 1`);
  const changed = async (result: Promise<{ count: number }>) => (await result).count === 1;

  return {
    async reserve(input) {
      const p = reservationOf(input);
      const [row] = await sql<ReceiptRow[]>`
        INSERT INTO payment_receipts AS r (id, payment_key, network, asset, pay_to, payer, amount, nonce, state, request_id, operation_id, valid_before, created_at, updated_at)
        VALUES (${p.id}, ${p.key}, ${p.network}, ${p.asset}, ${p.payTo}, ${p.payer}, ${p.amount}, ${p.nonce}, 'reserved', ${p.requestId}, ${p.operationId}, ${p.validBefore}, ${p.now}, ${p.now})
        ON CONFLICT (payment_key) DO UPDATE SET id = excluded.id, state = 'reserved', transaction_id = NULL, reason = NULL, settle_request = NULL,
          amount = excluded.amount, pay_to = excluded.pay_to, request_id = excluded.request_id, operation_id = excluded.operation_id,
          valid_before = excluded.valid_before, updated_at = excluded.updated_at
        WHERE r.state IN ('unused', 'failed')
        RETURNING ${sql.unsafe(receiptColumns.split(", ").map((c) => `r.${c}`).join(", "))}`;
      if (row) return { ok: true, receipt: toReceipt(row) };
      const existing = await byKey(p.key);
      // The row cannot vanish (receipts are never deleted); a missing one is a broken database.
      if (!existing) throw new Error("payment reservation refused but no receipt holds its key");
      return { ok: false, existing };
    },
    claimForSettlement: (id, c) =>
      changed(sql`
        UPDATE payment_receipts SET state = 'pending', request_id = COALESCE(${c.requestId}, request_id), operation_id = COALESCE(${c.operationId}, operation_id),
          amount = COALESCE(${c.amount ?? null}, amount), settle_request = ${c.settleRequest}, updated_at = ${c.now.toISOString()} WHERE id = ${id} AND state = 'reserved'`),
    async recordSubmitted(id, transaction, now) {
      await sql`UPDATE payment_receipts SET transaction_id = ${transaction}, updated_at = ${now.toISOString()} WHERE id = ${id} AND state = 'pending'`;
    },
    markSettled: (id, transaction, now) =>
      changed(sql`
        UPDATE payment_receipts SET state = 'settled', transaction_id = COALESCE(${transaction || null}, transaction_id), reason = NULL, settle_request = NULL,
          updated_at = ${now.toISOString()}, settled_at = ${now.toISOString()}
        WHERE id = ${id} AND state = 'pending'`),
    markFailed: (id, reason, transaction, now) =>
      changed(sql`
        UPDATE payment_receipts SET state = 'failed', transaction_id = COALESCE(${transaction || null}, transaction_id), reason = ${reason}, settle_request = NULL,
          updated_at = ${now.toISOString()}
        WHERE id = ${id} AND state IN ('pending', 'reserved')`),
    release: (id, now, from = "reserved") =>
      changed(sql`UPDATE payment_receipts SET state = 'unused', settle_request = NULL, updated_at = ${now.toISOString()} WHERE id = ${id} AND state = ${from}`),
    getByKey: byKey,
    get: (id) => one(sql<ReceiptRow[]>`SELECT ${sql.unsafe(receiptColumns)} FROM payment_receipts WHERE id = ${id}`),
    findByRequest: (requestId) => one(sql<ReceiptRow[]>`SELECT ${sql.unsafe(receiptColumns)} FROM payment_receipts WHERE request_id = ${requestId} ORDER BY updated_at DESC LIMIT 1`),
    async find(reference) {
      const lower = reference.toLowerCase();
      return (await byReference(reference, lower, reference)) ?? (lower !== reference ? await byReference(lower, lower, reference) : undefined);
    },
    async listPending() {
      const rows = await sql<(ReceiptRow & { settle_request: string | null })[]>`
        SELECT ${sql.unsafe(receiptColumns)}, settle_request FROM payment_receipts WHERE state = 'pending' ORDER BY updated_at`;
      return rows.map((r) => ({ receipt: toReceipt(r), settleRequest: r.settle_request }));
    },
    async listStaleReserved(olderThan) {
      const rows = await sql<ReceiptRow[]>`SELECT ${sql.unsafe(receiptColumns)} FROM payment_receipts WHERE state = 'reserved' AND updated_at < ${olderThan.toISOString()} ORDER BY updated_at`;
      return rows.map(toReceipt);
    },
  };
}
