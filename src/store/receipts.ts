/**
 * @module store/receipts — one row per x402 payment we accepted, from reservation to outcome.
 *
 * The row is also the replay lock: `payment_key` (network + asset + payer + nonce/txid) is UNIQUE,
 * and every transition is a conditional UPDATE, so one authorization is reserved by one request and
 * can move to "pending" (settling) once only, even with concurrent requests or processes.
 *
 *   reserved ──settle──▶ pending ──▶ settled | failed
 *      │                    (indeterminate: stays pending, reconcile decides)
 *      └──release──▶ unused (may be reserved again: nothing moved)
 *   failed may also be reserved again: a definite failure moved nothing either.
 *
 * No URL, no content, no baseline is stored (spec: receipts carry bookkeeping only).
 */
import type { Database, Migration } from "./db.ts";

export const receiptMigrations: readonly Migration[] = [
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
  valid_before INTEGER,
  settle_request TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  settled_at TEXT
);
CREATE INDEX payment_receipts_transaction ON payment_receipts (transaction_id);
CREATE INDEX payment_receipts_nonce ON payment_receipts (nonce);
CREATE INDEX payment_receipts_state ON payment_receipts (state, updated_at);
`,
  },
];

export type ReceiptState = "reserved" | "pending" | "settled" | "failed" | "unused";

export interface Receipt {
  readonly id: string;
  readonly paymentKey: string;
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
  readonly payer: string;
  readonly amount: string;
  readonly nonce: string;
  readonly transaction: string | null;
  readonly state: ReceiptState;
  readonly reason: string | null;
  readonly requestId: string | null;
  readonly operationId: string | null;
  readonly validBefore: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly settledAt: string | null;
}

export interface ReceiptRow {
  id: string;
  payment_key: string;
  network: string;
  asset: string;
  pay_to: string;
  payer: string;
  amount: string;
  nonce: string;
  transaction_id: string | null;
  state: ReceiptState;
  reason: string | null;
  request_id: string | null;
  operation_id: string | null;
  valid_before: number | null;
  created_at: string;
  updated_at: string;
  settled_at: string | null;
}

export function toReceipt(r: ReceiptRow): Receipt {
  return {
    id: r.id,
    paymentKey: r.payment_key,
    network: r.network,
    asset: r.asset,
    payTo: r.pay_to,
    payer: r.payer,
    amount: r.amount,
    nonce: r.nonce,
    transaction: r.transaction_id,
    state: r.state,
    reason: r.reason,
    requestId: r.request_id,
    operationId: r.operation_id,
    validBefore: r.valid_before,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    settledAt: r.settled_at,
  };
}

/** The replay key of a payment: one authorization (EVM: payer + nonce on one token) or one transaction (AVM). */
export function paymentKeyOf(input: { network: string; asset: string; payer: string; nonce: string }): string {
  return [input.network, input.asset.toLowerCase(), input.payer.toLowerCase(), input.nonce.toLowerCase()].join("|");
}

/** A reservation: the receipt's fields as the payment names them, at a moment. */
export interface ReserveInput extends Pick<Receipt, "id" | "network" | "asset" | "payTo" | "payer" | "amount" | "nonce" | "validBefore" | "requestId" | "operationId"> {
  readonly now: Date;
}

export type ReserveResult = { ok: true; receipt: Receipt } | { ok: false; existing: Receipt };

/** The receipt columns both engines read (the settle request only where it is needed). */
export const receiptColumns = "id, payment_key, network, asset, pay_to, payer, amount, nonce, transaction_id, state, reason, request_id, operation_id, valid_before, created_at, updated_at, settled_at";

/**
 * The payment table family (issue 28): one asynchronous interface, two engines: SQLite here (the
 * default, each call runs to completion at once) and PostgreSQL (receipts-pg.ts, shared by instances).
 */
export interface ReceiptStore {
  /** Atomically takes the payment's replay lock. `existing` tells why not (reserved = in flight; pending/settled = used). */
  reserve(input: ReserveInput): Promise<ReserveResult>;
  /** reserved → pending. False when the reservation is gone or already settling: the caller must not settle. */
  /** `amount`: what this settlement asks for when it is not the amount reserved (x402 `upto`: what was delivered). */
  claimForSettlement(id: string, context: { requestId: string | null; operationId: string | null; settleRequest: string | null; now: Date; amount?: string }): Promise<boolean>;
  recordSubmitted(id: string, transaction: string, now: Date): Promise<void>;
  markSettled(id: string, transaction: string | null, now: Date): Promise<boolean>;
  markFailed(id: string, reason: string, transaction: string | null, now: Date): Promise<boolean>;
  /** reserved → unused (work failed) or pending → unused (reconcile found nothing moved). */
  release(id: string, now: Date, from?: "reserved" | "pending"): Promise<boolean>;
  getByKey(paymentKey: string): Promise<Receipt | undefined>;
  get(id: string): Promise<Receipt | undefined>;
  /** The payment a request reserved (work that outlived its request follows it: capital seat holds). */
  findByRequest(requestId: string): Promise<Receipt | undefined>;
  /** By receipt id, settlement transaction id or authorization nonce (case-insensitive hex). */
  find(reference: string): Promise<Receipt | undefined>;
  listPending(): Promise<{ receipt: Receipt; settleRequest: string | null }[]>;
  listStaleReserved(olderThan: Date): Promise<Receipt[]>;
}

/** The columns a reservation writes, from its input (shared by both engines). */
export function reservationOf(input: ReserveInput) {
  return {
    id: input.id,
    key: paymentKeyOf(input),
    network: input.network,
    asset: input.asset,
    payTo: input.payTo,
    payer: input.payer,
    amount: input.amount,
    nonce: input.nonce.toLowerCase(),
    requestId: input.requestId,
    operationId: input.operationId,
    validBefore: input.validBefore,
    now: input.now.toISOString(),
  };
}

/** Prepared statements for the payment tables, bound to one SQLite database. */
export function createReceiptStore(db: Database): ReceiptStore {
  const sync = createSqliteReceipts(db);
  return {
    reserve: async (input) => sync.reserve(input),
    claimForSettlement: async (id, context) => sync.claimForSettlement(id, context),
    recordSubmitted: async (id, transaction, now) => sync.recordSubmitted(id, transaction, now),
    markSettled: async (id, transaction, now) => sync.markSettled(id, transaction, now),
    markFailed: async (id, reason, transaction, now) => sync.markFailed(id, reason, transaction, now),
    release: async (id, now, from) => sync.release(id, now, from),
    getByKey: async (paymentKey) => sync.getByKey(paymentKey),
    get: async (id) => sync.get(id),
    findByRequest: async (requestId) => sync.findByRequest(requestId),
    find: async (reference) => sync.find(reference),
    listPending: async () => sync.listPending(),
    listStaleReserved: async (olderThan) => sync.listStaleReserved(olderThan),
  };
}

function createSqliteReceipts(db: Database) {
  const byKey = db.query<ReceiptRow, [string]>(`SELECT ${receiptColumns} FROM payment_receipts WHERE payment_key = ?`);
  const byId = db.query<ReceiptRow, [string]>(`SELECT ${receiptColumns} FROM payment_receipts WHERE id = ?`);
  const byRequest = db.query<ReceiptRow, [string]>(`SELECT ${receiptColumns} FROM payment_receipts WHERE request_id = ? ORDER BY updated_at DESC LIMIT 1`);
  const byReference = db.query<ReceiptRow, [string, string, string]>(
    `SELECT ${receiptColumns} FROM payment_receipts WHERE transaction_id = ? OR nonce = ? OR id = ? ORDER BY updated_at DESC LIMIT 1`,
  );
  const insert = db.prepare(
    `INSERT INTO payment_receipts (id, payment_key, network, asset, pay_to, payer, amount, nonce, state, request_id, operation_id, valid_before, created_at, updated_at)
     VALUES ($id, $key, $network, $asset, $payTo, $payer, $amount, $nonce, 'reserved', $requestId, $operationId, $validBefore, $now, $now)`,
  );
  const retake = db.prepare(
    `UPDATE payment_receipts SET id = $id, state = 'reserved', transaction_id = NULL, reason = NULL, settle_request = NULL, amount = $amount, pay_to = $payTo,
       request_id = $requestId, operation_id = $operationId, valid_before = $validBefore, updated_at = $now
     WHERE payment_key = $key AND state IN ('unused', 'failed')`,
  );
  const claim = db.prepare(
    `UPDATE payment_receipts SET state = 'pending', request_id = COALESCE($requestId, request_id), operation_id = COALESCE($operationId, operation_id),
       amount = COALESCE($amount, amount), settle_request = $settleRequest, updated_at = $now WHERE id = $id AND state = 'reserved'`,
  );
  const submitted = db.prepare(`UPDATE payment_receipts SET transaction_id = $tx, updated_at = $now WHERE id = $id AND state = 'pending'`);
  const settled = db.prepare(
    `UPDATE payment_receipts SET state = 'settled', transaction_id = COALESCE($tx, transaction_id), reason = NULL, settle_request = NULL, updated_at = $now, settled_at = $now
     WHERE id = $id AND state = 'pending'`,
  );
  const failed = db.prepare(
    `UPDATE payment_receipts SET state = 'failed', transaction_id = COALESCE($tx, transaction_id), reason = $reason, settle_request = NULL, updated_at = $now
     WHERE id = $id AND state IN ('pending', 'reserved')`,
  );
  const released = db.prepare(`UPDATE payment_receipts SET state = 'unused', settle_request = NULL, updated_at = $now WHERE id = $id AND state = $from`);
  const pendingRows = db.query<ReceiptRow & { settle_request: string | null }, []>(
    `SELECT ${receiptColumns}, settle_request FROM payment_receipts WHERE state = 'pending' ORDER BY updated_at`,
  );
  const staleReserved = db.query<ReceiptRow, [string]>(`SELECT ${receiptColumns} FROM payment_receipts WHERE state = 'reserved' AND updated_at < ? ORDER BY updated_at`);

  const reserveTx = db.transaction((input: ReserveInput): ReserveResult => {
    const params = reservationOf(input);
    const key = params.key;
    const existing = byKey.get(key);
    if (!existing) {
      insert.run(params);
    } else {
      const { network: _n, asset: _a, payer: _p, nonce: _nonce, ...update } = params;
      if (retake.run(update).changes !== 1) return { ok: false, existing: toReceipt(existing) };
    }
    const row = byId.get(input.id);
    if (!row) throw new Error("payment reservation vanished");
    return { ok: true, receipt: toReceipt(row) };
  });

  return {
    /** Atomically takes the payment's replay lock. `existing` tells why not (reserved = in flight; pending/settled = used). */
    reserve: (input: ReserveInput): ReserveResult => reserveTx.immediate(input),
    /** reserved → pending. False when the reservation is gone or already settling: the caller must not settle. */
    claimForSettlement(id: string, context: { requestId: string | null; operationId: string | null; settleRequest: string | null; now: Date; amount?: string }): boolean {
      return claim.run({ id, requestId: context.requestId, operationId: context.operationId, settleRequest: context.settleRequest, now: context.now.toISOString(), amount: context.amount ?? null }).changes === 1;
    },
    recordSubmitted(id: string, transaction: string, now: Date): void {
      submitted.run({ id, tx: transaction, now: now.toISOString() });
    },
    markSettled(id: string, transaction: string | null, now: Date): boolean {
      return settled.run({ id, tx: transaction || null, now: now.toISOString() }).changes === 1;
    },
    markFailed(id: string, reason: string, transaction: string | null, now: Date): boolean {
      return failed.run({ id, reason, tx: transaction || null, now: now.toISOString() }).changes === 1;
    },
    /** reserved → unused (work failed) or pending → unused (reconcile found nothing moved). */
    release(id: string, now: Date, from: "reserved" | "pending" = "reserved"): boolean {
      return released.run({ id, from, now: now.toISOString() }).changes === 1;
    },
    getByKey(paymentKey: string): Receipt | undefined {
      const row = byKey.get(paymentKey);
      return row ? toReceipt(row) : undefined;
    },
    get(id: string): Receipt | undefined {
      const row = byId.get(id);
      return row ? toReceipt(row) : undefined;
    },
    /** The payment a request reserved (work that outlived its request follows it: capital seat holds). */
    findByRequest(requestId: string): Receipt | undefined {
      const row = byRequest.get(requestId);
      return row ? toReceipt(row) : undefined;
    },
    /** By receipt id, settlement transaction id or authorization nonce (case-insensitive hex). */
    find(reference: string): Receipt | undefined {
      const lower = reference.toLowerCase();
      const row = byReference.get(reference, lower, reference) ?? (lower !== reference ? byReference.get(lower, lower, reference) : null);
      return row ? toReceipt(row) : undefined;
    },
    listPending(): { receipt: Receipt; settleRequest: string | null }[] {
      return pendingRows.all().map((r) => ({ receipt: toReceipt(r), settleRequest: r.settle_request }));
    },
    listStaleReserved(olderThan: Date): Receipt[] {
      return staleReserved.all(olderThan.toISOString()).map(toReceipt);
    },
  };
}
