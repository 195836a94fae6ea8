/**
 * @module x402/payment-records — the receipts after the call: the free lookup a buyer uses before
 * paying again, and reconcile, which settles the fate of pending receipts and abandoned reservations.
 */
import type { ReceiptState } from "../store/receipts.ts";
import type { GateState } from "./gate-state.ts";
import { reasons, type PaymentRequirements } from "./messages.ts";

export type PaymentState = Exclude<ReceiptState, "reserved"> | "in_flight";

/** Public view of a payment for the free lookup: never content, never the request URL. */
export interface PaymentLookup {
  readonly id: string;
  readonly state: PaymentState;
  readonly network: string;
  readonly payer: string;
  readonly amount: string;
  readonly nonce: string;
  readonly transaction: string | null;
  readonly reason: string | null;
  readonly updatedAt: string;
}

export type ReconcileTally = { settled: number; failed: number; released: number; stillPending: number };

export async function lookupPayment(state: GateState, id: string): Promise<PaymentLookup | undefined> {
  const receipt = await state.store.find(id.trim());
  if (!receipt) return undefined;
  return {
    id: receipt.id,
    state: receipt.state === "reserved" ? "in_flight" : receipt.state,
    network: receipt.network,
    payer: receipt.payer,
    amount: receipt.amount,
    nonce: receipt.nonce,
    transaction: receipt.transaction,
    reason: receipt.reason,
    updatedAt: receipt.updatedAt,
  };
}

/** Settles the fate of pending receipts and abandoned reservations; safe to call at any time. */
export async function reconcilePayments(state: GateState): Promise<ReconcileTally> {
  const { store, now, config } = state;
  const tally = { settled: 0, failed: 0, released: 0, stillPending: 0 };
  const at = now();
  const nowSeconds = Math.floor(at.getTime() / 1000);
  // A reservation was never broadcast; once it cannot settle any more (or is very old) nothing can move.
  const staleBefore = new Date(at.getTime() - config.staleReservationSeconds * 1000);
  for (const receipt of await store.listStaleReserved(at)) {
    const expired = receipt.validBefore !== null ? receipt.validBefore <= nowSeconds : receipt.updatedAt < staleBefore.toISOString();
    if (expired && (await store.release(receipt.id, at))) tally.released++;
  }
  for (const { receipt, settleRequest } of await store.listPending()) {
    if (state.settling.has(receipt.id)) continue;
    const rail = state.rails.get(receipt.network);
    if (!rail) {
      tally.stillPending++;
      continue;
    }
    try {
      const pending = { network: receipt.network, payer: receipt.payer, nonce: receipt.nonce, transaction: receipt.transaction, validBefore: receipt.validBefore };
      if (rail.checkSettlement) {
        const check = await rail.checkSettlement(pending);
        if (check.state === "settled" && (await store.markSettled(receipt.id, check.transaction || null, now()))) tally.settled++;
        else if (check.state === "failed" && (await store.markFailed(receipt.id, check.reason, null, now()))) tally.failed++;
        else if (check.state === "unused" && (await store.release(receipt.id, now(), "pending"))) tally.released++;
        else if (check.state === "pending") tally.stillPending++;
      } else if (settleRequest) {
        // No chain access of our own: ask the facilitator again with the same payload (it settles or recognises it).
        const kept = JSON.parse(settleRequest) as { accepted: PaymentRequirements; payload: Record<string, unknown>; requirements: PaymentRequirements };
        const response = await rail.facilitator.settle({ x402Version: 2, accepted: kept.accepted, payload: kept.payload }, kept.requirements);
        if (response.success && (await store.markSettled(receipt.id, response.transaction || null, now()))) tally.settled++;
        else if (response.errorReason === reasons.settlementPending || response.errorReason === rail.replayReason) tally.stillPending++;
        else if (!response.success && (await store.markFailed(receipt.id, response.errorReason ?? reasons.unexpectedSettleError, null, now()))) tally.failed++;
      } else {
        tally.stillPending++;
      }
    } catch {
      tally.stillPending++;
    }
  }
  return tally;
}
