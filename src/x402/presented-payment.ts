/**
 * @module x402/presented-payment — the payment a call carries, decoded once by the transport edge
 * that read it. Light on purpose (no chain library): the HTTP layer builds it with payments off too.
 */
import { type DecodedPaymentSignature, decodePaymentValue } from "./headers.ts";
import type { PaymentPayload } from "./messages.ts";

/**
 * A payment as the transport carried it, decoded once at the edge that read it (HTTP's
 * PAYMENT-SIGNATURE header, MCP's `_meta["x402/payment"]`, A2A's `x402.payment.payload`) and
 * carried typed from there: a v2 `payload`, one that is `invalid` (undecodable, or not a v2
 * PaymentPayload: `version` tells a v1 payload apart from garbage), the v1 X-PAYMENT header
 * (`legacy`, answered with a clear error), or nothing. Nothing after the edge decodes it again.
 */
export type PresentedPayment =
  | { readonly kind: "none" }
  | { readonly kind: "legacy" }
  | { readonly kind: "invalid"; readonly reason: string; readonly version?: number }
  | { readonly kind: "payload"; readonly payload: PaymentPayload };

export const noPayment: PresentedPayment = { kind: "none" };

/** A decoded payment as the call carries it. */
export function presentDecoded(decoded: DecodedPaymentSignature): PresentedPayment {
  if (decoded.ok) return { kind: "payload", payload: decoded.payload };
  return { kind: "invalid", reason: decoded.reason, ...(decoded.version !== undefined ? { version: decoded.version } : {}) };
}

/** A payment an agent transport carried as a JSON value (MCP `_meta`, A2A metadata), checked as strictly as the header's. */
export function presentValue(value: unknown): PresentedPayment {
  return presentDecoded(decodePaymentValue(value));
}
