/**
 * @module store/receipt-list — read-only listing of settlement receipts for operators
 * (`tollbooth receipts`). Writes stay in store/receipts.ts.
 */
import type { Database } from "./db.ts";

export interface ReceiptRow {
  updated_at: string;
  state: string;
  network: string;
  payer: string;
  amount: string;
  operation_id: string | null;
  transaction_id: string | null;
  reason: string | null;
}

export function listRecentReceipts(db: Database, limit: number, state?: string): ReceiptRow[] {
  const where = state ? "WHERE state = ?" : "";
  const args = state ? [state, limit] : [limit];
  return db
    .query<ReceiptRow, (string | number)[]>(
      `SELECT updated_at, state, network, payer, amount, operation_id, transaction_id, reason FROM payment_receipts ${where} ORDER BY updated_at DESC LIMIT ?`,
    )
    .all(...args);
}
