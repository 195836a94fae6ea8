/**
 * @module jobs/caller — whose an Idempotency-Key is. An unpaid submission's key belongs to the
 * client address. A paid one's belongs to its payer, and only once that payer is proven: the
 * payment verified (the scope is then the verified payer, set after admission), or the very
 * payload the key was accepted with sent again (matched by its digest). A payer merely named in
 * an unverified payload never selects a scope, so a forged `authorization.from` replays nothing.
 */
import { decodePaymentSignature, PAYMENT_SIGNATURE_HEADER } from "../x402/headers.ts";
import { digestJson } from "../x402/payment-identifier.ts";

export const addressScope = (clientIp: string) => `addr:${clientIp}`;

/** Digest of the decoded PAYMENT-SIGNATURE payload (canonical JSON, so header encoding does not matter); null without a decodable one. */
export function paymentPayloadDigest(headers: Headers): string | null {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header === null) return null;
  const decoded = decodePaymentSignature(header);
  return decoded.ok ? digestJson(decoded.payload) : null;
}
