/**
 * @module x402/settle — the steps after the work, for any transport: settle a reserved payment
 * once (a definite failure withholds the result; an unconfirmed one keeps the receipt pending for
 * reconcile), release it when the work failed, and keep a success for payment-identifier retries.
 */
import type { Receipt } from "../store/receipts.ts";
import type { VerifiedPayment } from "./authorize.ts";
import type { GateState } from "./gate-state.ts";
import { encodePaymentResponse, PAYMENT_RESPONSE_HEADER } from "./headers.ts";
import { type PaymentAnswer, refusal } from "./payment-answer.ts";
import { OFFER_RECEIPT } from "./offer-receipt.ts";
import { type HeldAnswer, payloadDigestOf } from "./payment-identifier.ts";
import { reasons, type PaymentRequirements, type SettleResponse } from "./messages.ts";

export type SettleResult =
  /** `settlement` is the public outcome for the buyer (PAYMENT-RESPONSE, `_meta["x402/payment-response"]`). */
  | { kind: "settled"; settlement: SettleResponse; receipt: Receipt }
  | { kind: "answer"; answer: PaymentAnswer };

/** What the buyer is told of a settlement: errorMessage can carry raw RPC text, so only the stable reason. */
export function publicSettleResponse(response: SettleResponse, requirements: PaymentRequirements): SettleResponse {
  return {
    success: response.success,
    transaction: response.transaction,
    network: requirements.network,
    ...(response.payer ? { payer: response.payer } : {}),
    amount: requirements.amount,
    ...(response.errorReason ? { errorReason: response.errorReason } : {}),
  };
}

function failed(response: SettleResponse, requirements: PaymentRequirements): PaymentAnswer {
  return refusal("SETTLEMENT_FAILED", {
    settlement: publicSettleResponse(response, requirements),
    details: { reason: response.errorReason ?? reasons.unexpectedSettleError },
  });
}

/** A successful settlement with its signed receipt (offer-receipt extension), when the gate signs them. */
async function signedReceipt(state: GateState, settlement: SettleResponse, payment: VerifiedPayment, requestId: string): Promise<SettleResponse> {
  if (!state.offerReceipts) return settlement;
  const receipt = await state.offerReceipts.receipt({
    resourceUrl: payment.resourceUrl ?? payment.payload.resource?.url ?? "",
    payer: settlement.payer ?? payment.payer,
    network: settlement.network,
    transaction: settlement.transaction,
    requestId,
  });
  return { ...settlement, extensions: { [OFFER_RECEIPT]: receipt } };
}

/**
 * `amount`: settle this much instead of the authorized amount (the `upto` scheme: what was delivered,
 * at most the authorized limit); the receipt and PAYMENT-RESPONSE then name it.
 */
export async function settlePayment(state: GateState, payment: VerifiedPayment, context: { requestId: string; operationId: string; amount?: string }): Promise<SettleResult> {
  const { store, now } = state;
  const rail = state.rails.get(payment.network);
  const requirements = context.amount !== undefined ? { ...payment.requirements, amount: context.amount } : payment.requirements;
  const keep = { accepted: payment.payload.accepted, payload: payment.payload.payload, x402Version: 2, requirements };
  if (!rail || !(await store.claimForSettlement(payment.receiptId, { requestId: context.requestId, operationId: context.operationId, settleRequest: JSON.stringify(keep), now: now(), ...(context.amount !== undefined ? { amount: context.amount } : {}) }))) {
    // Not reserved any more (released, already settling or settled): never settle twice.
    return { kind: "answer", answer: failed({ success: false, transaction: "", network: payment.network, errorReason: reasons.invalidTransactionState }, requirements) };
  }
  state.settling.add(payment.receiptId);
  let submitted: string | null = null;
  let recording: Promise<void> = Promise.resolve();
  let response: SettleResponse;
  try {
    response = await rail.facilitator.settle(payment.payload, requirements, {
      onSubmitted: (transaction) => {
        submitted = transaction;
        recording = store.recordSubmitted(payment.receiptId, transaction, now());
      },
    });
  } catch {
    response = {
      success: false,
      transaction: submitted ?? "",
      network: payment.network,
      errorReason: submitted ? reasons.settlementPending : reasons.unexpectedSettleError,
    };
  } finally {
    state.settling.delete(payment.receiptId);
  }
  // The outcome below writes the transaction again; this write only has to be over first.
  await recording.catch(() => undefined);
  const transaction = response.transaction || submitted || null;
  const identifier = payment.paymentIdentifier;
  if (response.success) {
    await store.markSettled(payment.receiptId, transaction, now());
    const receipt = await store.get(payment.receiptId);
    if (!receipt) throw new Error("settled receipt vanished");
    const settlement = await signedReceipt(state, publicSettleResponse({ ...response, payer: response.payer ?? payment.payer }, requirements), payment, context.requestId);
    if (identifier) state.replays.settled(identifier.id, payment.receiptId, payloadDigestOf(payment.payload), { [PAYMENT_RESPONSE_HEADER]: encodePaymentResponse(settlement) });
    return { kind: "settled", settlement, receipt };
  }
  if (response.errorReason === reasons.settlementPending) {
    // Outcome unknown: the identifier stays in flight (409 with the payment id to look up) until its TTL.
    if (transaction) await store.recordSubmitted(payment.receiptId, transaction, now());
    return {
      kind: "answer",
      answer: refusal("SETTLEMENT_PENDING", {
        settlement: publicSettleResponse({ ...response, transaction: transaction ?? "" }, requirements),
        details: { payment_id: payment.receiptId, transaction, network: payment.network },
      }),
    };
  }
  await store.markFailed(payment.receiptId, response.errorReason ?? reasons.unexpectedSettleError, transaction, now());
  if (identifier) state.replays.abandon(identifier.id, payment.receiptId);
  return { kind: "answer", answer: failed(response, requirements) };
}

/** The work failed: nothing is settled and the authorization is not burned. */
export async function releasePayment(state: GateState, payment: VerifiedPayment): Promise<void> {
  await state.store.release(payment.receiptId, state.now());
  if (payment.paymentIdentifier) state.replays.abandon(payment.paymentIdentifier.id, payment.receiptId);
}

/** Keeps a settled call's success answer (in memory, for the replay TTL); false when not kept. */
export function holdAnswer(state: GateState, payment: VerifiedPayment, answer: HeldAnswer): boolean {
  const identifier = payment.paymentIdentifier;
  return identifier ? state.replays.hold(identifier.id, payment.receiptId, answer) : false;
}
