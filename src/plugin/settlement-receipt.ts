/**
 * @module plugin/settlement-receipt — the payment of a sync call as the paid pipeline hands it to
 * the settlement hooks (plugin/define.ts) and they to the capital board (capital/board.ts).
 */

/** The payment of a sync call as its settlement hooks see it (all null when payments are off). */
export interface SettlementReceipt {
  readonly payer: string | null;
  readonly network: string | null;
  readonly transaction: string | null;
  /** The payment's id for GET /v1/payments/{id}. */
  readonly paymentId: string | null;
}
