/**
 * @module x402/payer — what a request's payment names, read from its PAYMENT-SIGNATURE header
 * before anything is verified: the payload's digest, so a paid Idempotency-Key is matched to the
 * very payload it was accepted with. Nothing is granted on it; grants wait for the verified payer.
 */
import { decodePaymentSignature, PAYMENT_SIGNATURE_HEADER } from "./headers.ts";
import { digestJson } from "./payment-identifier.ts";

/** Digest of the decoded PAYMENT-SIGNATURE payload (canonical JSON, so header encoding does not matter); null without a decodable one. */
export function paymentPayloadDigest(headers: Headers): string | null {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header === null) return null;
  const decoded = decodePaymentSignature(header);
  return decoded.ok ? digestJson(decoded.payload) : null;
}
