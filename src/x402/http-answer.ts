/**
 * @module x402/http-answer — the x402 HTTP transport at the edges of the payment steps: which payment
 * a request's headers present, and a payment answer as a status, PAYMENT-* headers and the error
 * body. Light on purpose (no chain library): the HTTP layer imports it with payments off too.
 */
import { errorCodes } from "../errors.ts";
import { presentDecoded, type PresentedPayment } from "./presented-payment.ts";
import { decodePaymentSignature, encodePaymentRequired, encodePaymentResponse, LEGACY_PAYMENT_HEADER, PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER } from "./headers.ts";
import type { PaymentAnswer } from "./payment-answer.ts";

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

const NO_STORE = { "Cache-Control": "no-store" };

/** HTTP's rendering of a payment answer: the code's status, the offer and settlement as PAYMENT-* headers, the error body. */
export function httpAnswerOf(answer: PaymentAnswer): HttpAnswer {
  if (answer.kind === "replayed") return { status: answer.held.status, headers: { ...answer.held.headers, ...paymentResponseHeaders(answer.held.settlement) }, body: answer.held.body };
  const spec = errorCodes[answer.code];
  const headers: Record<string, string> = { ...NO_STORE };
  if (answer.required) headers[PAYMENT_REQUIRED_HEADER] = encodePaymentRequired(answer.required);
  if (answer.settlement) headers[PAYMENT_RESPONSE_HEADER] = encodePaymentResponse(answer.settlement);
  return { status: spec.status, headers, body: { ok: false, error: answer.code, status: spec.status, message: answer.message ?? spec.message, ...(answer.details ?? {}) } };
}

/**
 * The payment a request's headers present: PAYMENT-SIGNATURE decoded (the one place the header is
 * read and decoded), else the v1 X-PAYMENT (refused with a clear error), else none.
 */
export function presentedIn(headers: Headers): PresentedPayment {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header !== null) return presentDecoded(decodePaymentSignature(header));
  return headers.get(LEGACY_PAYMENT_HEADER) !== null ? { kind: "legacy" } : { kind: "none" };
}

/** The PAYMENT-RESPONSE header of a settlement. */
export function paymentResponseHeaders(settlement: Parameters<typeof encodePaymentResponse>[0] | undefined): Record<string, string> {
  return settlement ? { [PAYMENT_RESPONSE_HEADER]: encodePaymentResponse(settlement) } : {};
}
