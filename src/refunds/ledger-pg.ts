/**
 * @module refunds/ledger-pg — the refund ledger on PostgreSQL: the same compare-and-set steps as
 * ledger.ts (one statement each), over the jobs table or the capital commitments, so of several
 * instances paying refunds exactly one claims a refund and only its recorded transaction is ever
 * sent. The PostgreSQL engines of those families spread it into their stores, as on SQLite.
 */
import type { Sql } from "../store/postgres.ts";
import { type LedgerRow, type RefundLedger, type RefundLedgerTable, refundWorkOf } from "./ledger.ts";

export function createPgRefundLedger(sql: Sql, { table, settled, orderBy }: RefundLedgerTable): RefundLedger {
  // Fragments are built per statement (a fragment belongs to the one query it is written into).
  const t = () => sql.unsafe(table);
  const isSettled = () => sql.unsafe(settled);
  const changed = async (result: Promise<{ count: number }>) => (await result).count === 1;
  return {
    async refundWork(networks) {
      const rows = await sql<LedgerRow[]>`
        SELECT id, network, payer, price_micros, refund_state, refund_claim, refund_claimed_at, refund_tx, refund_raw FROM ${t()}
        WHERE refund_state IN ('due', 'sending') AND ${isSettled()} AND payer IS NOT NULL AND network IS NOT NULL
        ORDER BY ${sql.unsafe(orderBy)}, id`;
      return refundWorkOf(rows, networks);
    },
    claimRefund: (id, claim, at) =>
      changed(sql`
        UPDATE ${t()} SET refund_state = 'sending', refund_claim = ${claim}, refund_claimed_at = ${at.toISOString()}, refund_tx = NULL, refund_raw = NULL
        WHERE id = ${id} AND refund_state = 'due' AND ${isSettled()}`),
    recordRefundTx: (id, claim, signed) =>
      changed(sql`
        UPDATE ${t()} SET refund_tx = ${signed.transaction}, refund_raw = ${signed.raw}, refund_attempts = refund_attempts + 1
        WHERE id = ${id} AND refund_state = 'sending' AND refund_claim = ${claim} AND refund_tx IS NULL`),
    markRefundSent: (id, transaction, at) =>
      changed(sql`
        UPDATE ${t()} SET refund_state = 'paid', refund_paid_at = ${at.toISOString()}, refund_raw = NULL, refund_claim = NULL, refund_error = NULL
        WHERE id = ${id} AND refund_state = 'sending' AND refund_tx = ${transaction}`),
    releaseRefund: (id, seen, error) =>
      changed(sql`
        UPDATE ${t()} SET refund_state = 'due', refund_error = ${error}, refund_claim = NULL, refund_claimed_at = NULL, refund_tx = NULL, refund_raw = NULL
        WHERE id = ${id} AND refund_state = 'sending' AND refund_claim IS NOT DISTINCT FROM ${seen.claim} AND refund_tx IS NOT DISTINCT FROM ${seen.transaction}`),
    async noteRefundError(id, error) {
      await sql`UPDATE ${t()} SET refund_error = ${error} WHERE id = ${id} AND refund_state IN ('due', 'sending')`;
    },
  };
}
