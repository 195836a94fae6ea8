/**
 * @module x402/payer — who a request's payment names, read from its PAYMENT-SIGNATURE header
 * before anything is verified: the payload's digest (a paid Idempotency-Key is matched to the very
 * payload it was accepted with) and the payer an authorization names (each family parses its own
 * payloads, evm/payload.ts). A payer merely named in an unverified payload never grants anything,
 * so a forged `authorization.from` replays nothing; grants wait for the verified payer.
 */
import { namedEvmPayer } from "./evm/payload.ts";
import { registeredFamilies } from "./family-registry.ts";
import { decodePaymentSignature, PAYMENT_SIGNATURE_HEADER } from "./headers.ts";
import { digestJson } from "./payment-identifier.ts";

/** Digest of the decoded PAYMENT-SIGNATURE payload (canonical JSON, so header encoding does not matter); null without a decodable one. */
export function paymentPayloadDigest(headers: Headers): string | null {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header === null) return null;
  const decoded = decodePaymentSignature(header);
  return decoded.ok ? digestJson(decoded.payload) : null;
}

/**
 * The payer a payment's authorization names, before anything is verified (EVM `exact`, and the
 * families loaded from folders that name one; an Algorand group names none here). Only ever used to refuse
 * early (a quote bound to another payer: 403 before the 402); nothing is granted on it, since whoever
 * forges it can only get themselves refused. Grants wait for the verified payer.
 */
export function namedPayerOf(headers: Headers): string | undefined {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header === null) return undefined;
  const decoded = decodePaymentSignature(header);
  if (!decoded.ok) return undefined;
  const evm = namedEvmPayer(decoded.payload);
  if (evm !== undefined) return evm;
  for (const family of registeredFamilies()) {
    const payer = family.namedPayer(decoded.payload);
    if (payer !== undefined) return payer;
  }
  return undefined;
}
