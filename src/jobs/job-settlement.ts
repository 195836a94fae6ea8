/**
 * @module jobs/job-settlement — a job's settlement as its row keeps it: the SettleResponse as JSON,
 * typed again when the row is read, and encoded for a transport only at its edge (PAYMENT-RESPONSE
 * over HTTP, `_meta` over MCP, the receipts of an A2A task). Rows written before issue 39 hold the
 * encoded PAYMENT-RESPONSE header instead; they are read alike (a tolerant reader rather than a
 * migration: SQLite has no base64 in SQL, and an old server's rows may still arrive on PostgreSQL).
 */
import { Value } from "@sinclair/typebox/value";
import { decodePaymentResponse } from "../x402/headers.ts";
import { SettleResponse } from "../x402/messages.ts";

/** What the row's `payment_response` column stores for a settlement. */
export function settlementText(settlement: SettleResponse): string {
  return JSON.stringify(settlement);
}

/** The settlement a row stores, typed; null when none (or when what is stored is not one). */
export function settlementOfText(text: string | null): SettleResponse | null {
  if (text === null) return null;
  // JSON starts with "{"; the header rows of before are base64, which never does.
  if (!text.startsWith("{")) {
    const decoded = decodePaymentResponse(text);
    return decoded.ok ? decoded.value : null;
  }
  try {
    const value: unknown = JSON.parse(text);
    return Value.Check(SettleResponse, value) ? value : null;
  } catch {
    return null;
  }
}
