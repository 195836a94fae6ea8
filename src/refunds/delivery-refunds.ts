/**
 * @module refunds/delivery-refunds — refunds due for work paid with `exact` and delivered in part
 * (paid-call/delivery.ts): the quote was settled, the undelivered remainder is owed back to the
 * payer. One row per settled payment (its receipt id), on the refund ledger's columns, so the
 * refund payer and `tollbooth refunds` can treat it as they treat jobs. SQLite here; PostgreSQL in
 * delivery-refunds-pg.ts.
 */
import type { Database, Migration } from "../store/db.ts";
import { createRefundLedger, type RefundLedger, type RefundLedgerTable } from "./ledger.ts";

/** A remainder owed back: `priceMicros` is the refund, `quotedMicros` what was settled. */
export interface DeliveryRefund {
  /** The settled payment's receipt id. */
  readonly id: string;
  readonly operationId: string;
  readonly requestId: string;
  readonly network: string;
  readonly payer: string;
  readonly transaction: string | null;
  readonly quotedMicros: number;
  readonly priceMicros: number;
  readonly createdAt: Date;
}

export interface DeliveryRefunds extends RefundLedger {
  /** Records a refund due (once per receipt: a second record of the same id is ignored). */
  recordDue(refund: DeliveryRefund): Promise<void>;
  /** Every row, oldest first (operators, tests). */
  list(): Promise<DeliveryRefundEntry[]>;
  /** due|sending → paid by the operator's hand (`tollbooth refunds --mark-paid ID --note TX`); false when none is unpaid under `id`. */
  markRefundPaid(id: string, note: string, at: Date): Promise<boolean>;
}

/** A row as `tollbooth refunds` shows it: the refund and where its payment stands. */
export interface DeliveryRefundEntry extends DeliveryRefund {
  readonly state: string;
  readonly refundTx: string | null;
  readonly refundError: string | null;
  readonly refundNote: string | null;
  readonly paidAt: string | null;
}

/** The operator's mark: paid by hand, the signed transaction (if any) never sent again. */
export const markPaidSql = `UPDATE delivery_refunds SET refund_state = 'paid', refund_note = $1, refund_paid_at = $2, refund_raw = NULL, refund_claim = NULL
  WHERE id = $3 AND refund_state IN ('due', 'sending')`;

const columns = (types: { int: string; time: string }) => `
      id TEXT PRIMARY KEY,
      operation_id TEXT NOT NULL,
      request_id TEXT NOT NULL,
      network TEXT NOT NULL,
      payer TEXT NOT NULL,
      transaction_id TEXT,
      quoted_micros ${types.int} NOT NULL,
      price_micros ${types.int} NOT NULL,
      created_at ${types.time} NOT NULL,
      refund_state TEXT NOT NULL DEFAULT 'due',
      refund_reason TEXT,
      refund_note TEXT,
      refund_claim TEXT,
      refund_claimed_at TEXT,
      refund_tx TEXT,
      refund_raw TEXT,
      refund_attempts ${types.int} NOT NULL DEFAULT 0,
      refund_error TEXT,
      refund_paid_at TEXT`;

const migrationId = "delivery_refunds_0001_table";

export const deliveryRefundMigrations: readonly Migration[] = [
  {
    id: migrationId,
    sql: `CREATE TABLE delivery_refunds (${columns({ int: "INTEGER", time: "TEXT" })}
    );
    CREATE INDEX delivery_refunds_due ON delivery_refunds (refund_state);`,
  },
];

export const deliveryRefundPgMigrations: readonly Migration[] = [
  {
    id: migrationId,
    sql: `CREATE TABLE delivery_refunds (${columns({ int: "BIGINT", time: "TIMESTAMPTZ" })}
    );
    CREATE INDEX delivery_refunds_due ON delivery_refunds (refund_state);`,
  },
];

/** Every row is a settled payment's remainder, so every row is refundable. */
export const deliveryRefundTable: RefundLedgerTable = { table: "delivery_refunds", settled: "price_micros > 0", orderBy: "created_at" };

export interface DeliveryRefundRow {
  id: string;
  operation_id: string;
  request_id: string;
  network: string;
  payer: string;
  transaction_id: string | null;
  quoted_micros: number | string;
  price_micros: number | string;
  created_at: string | Date;
  refund_state: string;
  refund_tx: string | null;
  refund_error: string | null;
  refund_note: string | null;
  refund_paid_at: string | null;
}

export function deliveryRefundOf(row: DeliveryRefundRow): DeliveryRefundEntry {
  return {
    id: row.id,
    operationId: row.operation_id,
    requestId: row.request_id,
    network: row.network,
    payer: row.payer,
    transaction: row.transaction_id,
    quotedMicros: Number(row.quoted_micros),
    priceMicros: Number(row.price_micros),
    createdAt: new Date(row.created_at),
    state: row.refund_state,
    refundTx: row.refund_tx,
    refundError: row.refund_error,
    refundNote: row.refund_note,
    paidAt: row.refund_paid_at,
  };
}

export function createDeliveryRefunds(db: Database): DeliveryRefunds {
  const insert = db.prepare<unknown, [string, string, string, string, string, string | null, number, number, string]>(
    `INSERT INTO delivery_refunds (id, operation_id, request_id, network, payer, transaction_id, quoted_micros, price_micros, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const all = db.prepare<DeliveryRefundRow, []>("SELECT * FROM delivery_refunds ORDER BY created_at, rowid");
  const markPaid = db.prepare<unknown, [string, string, string]>(markPaidSql.replace(/\$\d/g, "?"));
  return {
    ...createRefundLedger(db, deliveryRefundTable),
    async recordDue(r) {
      insert.run(r.id, r.operationId, r.requestId, r.network, r.payer, r.transaction, r.quotedMicros, r.priceMicros, r.createdAt.toISOString());
    },
    list: async () => all.all().map(deliveryRefundOf),
    markRefundPaid: async (id, note, at) => markPaid.run(note, at.toISOString(), id).changes === 1,
  };
}
