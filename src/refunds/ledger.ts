/**
 * @module refunds/ledger — the refund ledger on one table: the work the refund payer has to do and the
 * exactly-once steps of a refund (claim, record the signed transaction, mark it sent, release, note an error).
 * Jobs and capital commitments keep the same refund columns (refund_state, refund_claim, refund_claimed_at,
 * refund_tx, refund_raw, refund_attempts, refund_error, refund_paid_at, plus payer, network, price_micros), so
 * one set of statements serves both. Asynchronous for either engine: SQLite here, PostgreSQL in
 * ledger-pg.ts (the same compare-and-set statements, so one refund is claimed by one instance).
 */
import type { Database } from "../store/db.ts";

/**
 * `due`: owed, nothing signed. `sending`: claimed for automatic payment; once `refundTx` is set a
 * transaction exists that may land, so it is only ever re-broadcast, never replaced until the
 * chain shows it cannot land. `paid`: confirmed on chain or marked by the operator.
 */
export type RefundState = "due" | "sending" | "paid";

/** A refund the automatic payer may work on (settled at acceptance, not yet paid). */
export interface RefundWork {
  readonly id: string;
  readonly network: string;
  readonly payer: string;
  readonly priceMicros: number;
  readonly state: "due" | "sending";
  readonly claim: string | null;
  readonly claimedAt: string | null;
  /** The recorded signed transaction, when one exists. */
  readonly signed: { readonly transaction: string; readonly raw: string } | null;
}

/**
 * The rows refunds are owed on — jobs, and capital commitments of a cancelled ticket — each
 * state change a compare-and-set on the row.
 */
export interface RefundLedger {
  /** Unpaid refunds of rows whose payment was settled, on the given networks. */
  refundWork(networks: readonly string[]): Promise<RefundWork[]>;
  /** due → sending under `claim`; false when another pass holds it or it is no longer due. */
  claimRefund(id: string, claim: string, at: Date): Promise<boolean>;
  /** Records the signed transaction before it is sent; false when the claim was lost (then it must not be sent). */
  recordRefundTx(id: string, claim: string, signed: { transaction: string; raw: string }): Promise<boolean>;
  /** sending → paid for exactly this transaction. */
  markRefundSent(id: string, transaction: string, at: Date): Promise<boolean>;
  /**
   * sending → due, only for the claim and transaction (or none) the caller saw: after the chain
   * proved the transaction can never land, or when nothing was signed under a stale claim.
   */
  releaseRefund(id: string, seen: { claim: string | null; transaction: string | null }, error: string): Promise<boolean>;
  /** Keeps the state, notes why it is not paid yet (shown by `tollbooth refunds`). */
  noteRefundError(id: string, error: string): Promise<void>;
}

export interface RefundLedgerTable {
  /** A constant table name (interpolated into the statements). */
  readonly table: "jobs" | "capital_commitments" | "delivery_refunds";
  /** SQL condition a row must meet to be refundable at all: its payment settled. */
  readonly settled: string;
  /** The column refunds are paid in order of. */
  readonly orderBy: string;
}

/** The refund columns a table on the ledger keeps, as its rows read back. */
export interface RefundColumns {
  refund_state: string | null;
  refund_reason: string | null;
  refund_note: string | null;
  refund_claim: string | null;
  refund_claimed_at: string | null;
  refund_tx: string | null;
  refund_raw: string | null;
  refund_attempts: number;
  refund_error: string | null;
  refund_paid_at: string | null;
}

export interface LedgerRow {
  id: string;
  network: string | null;
  payer: string | null;
  price_micros: number;
  refund_state: string | null;
  refund_claim: string | null;
  refund_claimed_at: string | null;
  refund_tx: string | null;
  refund_raw: string | null;
}

export function createRefundLedger(db: Database, { table, settled, orderBy }: RefundLedgerTable): RefundLedger {
  const work = db.prepare<LedgerRow, []>(
    `SELECT * FROM ${table} WHERE refund_state IN ('due', 'sending') AND ${settled} AND payer IS NOT NULL AND network IS NOT NULL ORDER BY ${orderBy}, rowid`,
  );
  const claim = db.prepare<unknown, [string, string, string]>(
    `UPDATE ${table} SET refund_state = 'sending', refund_claim = ?, refund_claimed_at = ?, refund_tx = NULL, refund_raw = NULL WHERE id = ? AND refund_state = 'due' AND ${settled}`,
  );
  const record = db.prepare<unknown, [string, string, string, string]>(
    `UPDATE ${table} SET refund_tx = ?, refund_raw = ?, refund_attempts = refund_attempts + 1 WHERE id = ? AND refund_state = 'sending' AND refund_claim = ? AND refund_tx IS NULL`,
  );
  const sent = db.prepare<unknown, [string, string, string]>(
    `UPDATE ${table} SET refund_state = 'paid', refund_paid_at = ?, refund_raw = NULL, refund_claim = NULL, refund_error = NULL WHERE id = ? AND refund_state = 'sending' AND refund_tx = ?`,
  );
  const release = db.prepare<unknown, [string, string, string | null, string | null]>(
    `UPDATE ${table} SET refund_state = 'due', refund_error = ?, refund_claim = NULL, refund_claimed_at = NULL, refund_tx = NULL, refund_raw = NULL
     WHERE id = ? AND refund_state = 'sending' AND refund_claim IS ? AND refund_tx IS ?`,
  );
  const noteError = db.prepare<unknown, [string, string]>(`UPDATE ${table} SET refund_error = ? WHERE id = ? AND refund_state IN ('due', 'sending')`);
  return {
    refundWork: async (networks) => refundWorkOf(work.all(), networks),
    claimRefund: async (id, owner, at) => claim.run(owner, at.toISOString(), id).changes === 1,
    recordRefundTx: async (id, owner, signed) => record.run(signed.transaction, signed.raw, id, owner).changes === 1,
    markRefundSent: async (id, transaction, at) => sent.run(at.toISOString(), id, transaction).changes === 1,
    releaseRefund: async (id, seen, error) => release.run(error, id, seen.claim, seen.transaction).changes === 1,
    async noteRefundError(id, error) {
      noteError.run(error, id);
    },
  };
}

/** The rows on the given networks as work for the payer (shared by both engines). */
export function refundWorkOf(rows: readonly LedgerRow[], networks: readonly string[]): RefundWork[] {
  const wanted = new Set(networks);
  return rows
    .filter((r) => r.network !== null && r.payer !== null && wanted.has(r.network))
    .map(
      (r): RefundWork => ({
        id: r.id,
        network: r.network ?? "",
        payer: r.payer ?? "",
        priceMicros: r.price_micros,
        state: r.refund_state === "sending" ? "sending" : "due",
        claim: r.refund_claim,
        claimedAt: r.refund_claimed_at,
        signed: r.refund_tx !== null && r.refund_raw !== null ? { transaction: r.refund_tx, raw: r.refund_raw } : null,
      }),
    );
}
