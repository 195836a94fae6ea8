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

/**
 * The payer an EVM `exact` authorization names, before anything is verified. Only ever used to refuse
 * early (a quote bound to another payer: 403 before the 402); nothing is granted on it, since whoever
 * forges it can only get themselves refused. Grants wait for the verified payer.
 */
export function namedPayerOf(headers: Headers): string | undefined {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header === null) return undefined;
  const decoded = decodePaymentSignature(header);
  if (!decoded.ok) return undefined;
  const from = (decoded.payload.payload as { authorization?: { from?: unknown } }).authorization?.from;
  return typeof from === "string" && /^0x[0-9a-fA-F]{40}$/.test(from) ? from.toLowerCase() : undefined;
}
