/**
 * @module x402/gate — the payment steps bound to one server's state, answering in HTTP terms
 * (status, PAYMENT-* headers, JSON body). The steps themselves know no transport:
 *
 *   authorize.ts   price → offer → match → echo → payment identifier → verify → reserve
 *   settle.ts      settle once (failure: result withheld; unconfirmed: pending) · release · hold
 *   payment-records.ts   lookup · reconcile
 *
 * `authorize(headers, …)` reads PAYMENT-SIGNATURE (no header → 402 challenge · undecodable → 400 ·
 * X-PAYMENT or v1 → 400). The payments seam (x402-payments.ts) calls the steps with `state`
 * for every transport, HTTP and MCP alike; this object serves the free lookup, reconcile and tests.
 */
import { type AuthorizeResult as CoreAuthorizeResult, authorizePayment, challengeFor, type PaidOperation, type VerifiedPayment } from "./authorize.ts";
import { createGateState, type GateState, type GateStateDeps } from "./gate-state.ts";
import { type HttpAnswer, httpAnswerOf, paymentResponseHeaders, presentedIn } from "./http-answer.ts";
import { lookupPayment, type PaymentLookup, reconcilePayments, type ReconcileTally } from "./payment-records.ts";
import { holdAnswer, releasePayment, settlePayment } from "./settle.ts";
import type { Receipt } from "../store/receipts.ts";
import type { PaymentRequired } from "./messages.ts";

export type { PaidOperation, VerifiedPayment } from "./authorize.ts";
export type { HttpAnswer } from "./http-answer.ts";
export type { PaymentLookup, PaymentState } from "./payment-records.ts";

export type AuthorizeResult = { kind: "answer"; answer: HttpAnswer } | { kind: "verified"; payment: VerifiedPayment };
export type SettleResult = { kind: "settled"; headers: Record<string, string>; receipt: Receipt } | { kind: "answer"; answer: HttpAnswer };

export interface PaymentGate {
  /** The state the transport-free steps run over (MCP calls them directly). */
  readonly state: GateState;
  authorize(headers: Headers, op: PaidOperation, context?: { requestId?: string; operationId?: string }): Promise<AuthorizeResult>;
  settle(payment: VerifiedPayment, context: { requestId: string; operationId: string }): Promise<SettleResult>;
  release(payment: VerifiedPayment): Promise<void>;
  lookup(id: string): Promise<PaymentLookup | undefined>;
  /** Settles the fate of pending receipts and abandoned reservations; safe to call at any time. */
  reconcile(): Promise<ReconcileTally>;
  /** The offers (PaymentRequired) for an operation: the free price preview. */
  challenge(op: PaidOperation, error?: string): Promise<PaymentRequired>;
  /** Keeps a settled call's success answer (in memory, for the replay TTL); false when not kept. */
  hold(payment: VerifiedPayment, answer: HttpAnswer): boolean;
}

export type PaymentGateDeps = GateStateDeps;

export function httpAuthorizeResult(result: CoreAuthorizeResult): AuthorizeResult {
  return result.kind === "verified" ? result : { kind: "answer", answer: httpAnswerOf(result.answer) };
}

export function createPaymentGate(deps: PaymentGateDeps): PaymentGate {
  const state = createGateState(deps);
  return {
    state,
    authorize: async (headers, op, context = {}) => httpAuthorizeResult(await authorizePayment(state, presentedIn(headers), op, context)),
    async settle(payment, context) {
      const result = await settlePayment(state, payment, context);
      if (result.kind === "answer") return { kind: "answer", answer: httpAnswerOf(result.answer) };
      return { kind: "settled", headers: paymentResponseHeaders(result.settlement), receipt: result.receipt };
    },
    release: (payment) => releasePayment(state, payment),
    lookup: (id) => lookupPayment(state, id),
    reconcile: () => reconcilePayments(state),
    challenge: (op, error) => challengeFor(state, op, error),
    hold: (payment, answer) => holdAnswer(state, payment, answer),
  };
}
