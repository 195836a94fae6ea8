/**
 * @module x402/gate — the payment steps bound to one server's state, answering in HTTP terms
 * (status, PAYMENT-* headers, JSON body). The steps themselves know no transport:
 *
 *   authorize.ts   price → offer → match → echo → payment identifier → verify → reserve
 *   settle.ts      settle once (failure: result withheld; unconfirmed: pending) · release · hold
 *   payment-records.ts   lookup · reconcile
 *
 * `authorize(headers, …)` reads PAYMENT-SIGNATURE (no header → 402 challenge · undecodable → 400 ·
 * X-PAYMENT or v1 → 400). Other transports (MCP) call the steps with `state`.
 */
import { errorCodes } from "../errors.ts";
import { type AuthorizeResult as CoreAuthorizeResult, authorizePayment, challengeFor, type PaidOperation, type PresentedPayment, type VerifiedPayment } from "./authorize.ts";
import { createGateState, type GateState, type GateStateDeps } from "./gate-state.ts";
import { encodePaymentRequired, encodePaymentResponse, LEGACY_PAYMENT_HEADER, PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER } from "./headers.ts";
import type { PaymentAnswer } from "./payment-answer.ts";
import { lookupPayment, type PaymentLookup, reconcilePayments, type ReconcileTally } from "./payment-records.ts";
import { holdAnswer, releasePayment, settlePayment } from "./settle.ts";
import type { Receipt } from "../store/receipts.ts";
import type { PaymentRequired } from "./wire.ts";

export type { PaidOperation, VerifiedPayment } from "./authorize.ts";
export type { PaymentLookup, PaymentState } from "./payment-records.ts";

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

export type AuthorizeResult = { kind: "answer"; answer: HttpAnswer } | { kind: "verified"; payment: VerifiedPayment };
export type SettleResult = { kind: "settled"; headers: Record<string, string>; receipt: Receipt } | { kind: "answer"; answer: HttpAnswer };

export interface PaymentGate {
  /** The state the transport-free steps run over (MCP calls them directly). */
  readonly state: GateState;
  authorize(headers: Headers, op: PaidOperation, context?: { requestId?: string; operationId?: string }): Promise<AuthorizeResult>;
  settle(payment: VerifiedPayment, context: { requestId: string; operationId: string }): Promise<SettleResult>;
  release(payment: VerifiedPayment): void;
  lookup(id: string): PaymentLookup | undefined;
  /** Settles the fate of pending receipts and abandoned reservations; safe to call at any time. */
  reconcile(): Promise<ReconcileTally>;
  /** The offers (PaymentRequired) for an operation: the free price preview. */
  challenge(op: PaidOperation, error?: string): Promise<PaymentRequired>;
  /** Keeps a settled call's success answer (in memory, for the replay TTL); false when not kept. */
  hold(payment: VerifiedPayment, answer: HttpAnswer): boolean;
}

export type PaymentGateDeps = GateStateDeps;

const NO_STORE = { "Cache-Control": "no-store" };

/** HTTP's rendering of a payment answer: the code's status, the offer and settlement as PAYMENT-* headers, the error body. */
export function httpAnswerOf(answer: PaymentAnswer): HttpAnswer {
  if (answer.kind === "replayed") return { status: answer.held.status, headers: { ...answer.held.headers }, body: answer.held.body };
  const spec = errorCodes[answer.code];
  const headers: Record<string, string> = { ...NO_STORE };
  if (answer.required) headers[PAYMENT_REQUIRED_HEADER] = encodePaymentRequired(answer.required);
  if (answer.settlement) headers[PAYMENT_RESPONSE_HEADER] = encodePaymentResponse(answer.settlement);
  return { status: spec.status, headers, body: { ok: false, error: answer.code, status: spec.status, message: answer.message ?? spec.message, ...(answer.details ?? {}) } };
}

/** The payment a request's headers present: PAYMENT-SIGNATURE, else the v1 X-PAYMENT (refused with a clear error), else none. */
export function presentedIn(headers: Headers): PresentedPayment {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header !== null) return { kind: "encoded", value: header };
  return headers.get(LEGACY_PAYMENT_HEADER) !== null ? { kind: "legacy" } : { kind: "none" };
}

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
      return { kind: "settled", headers: { [PAYMENT_RESPONSE_HEADER]: encodePaymentResponse(result.settlement) }, receipt: result.receipt };
    },
    release: (payment) => releasePayment(state, payment),
    lookup: (id) => lookupPayment(state, id),
    reconcile: () => reconcilePayments(state),
    challenge: (op, error) => challengeFor(state, op, error),
    hold: (payment, answer) => holdAnswer(state, payment, answer),
  };
}
