/**
 * @module x402/payer — what a call's payment names before anything is verified: the payload's
 * digest, so a paid Idempotency-Key is matched to the very payload it was accepted with. Read from
 * the payment as the edge decoded it (never from the header again). Nothing is granted on it;
 * grants wait for the verified payer.
 */
import { payloadDigestOf } from "./payment-identifier.ts";
import type { PresentedPayment } from "./presented-payment.ts";

/** Digest of the presented payload (canonical JSON, so header encoding does not matter); null without a decodable one. */
export function paymentPayloadDigest(presented: PresentedPayment): string | null {
  return presented.kind === "payload" ? payloadDigestOf(presented.payload) : null;
}
