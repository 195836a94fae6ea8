/**
 * @module jobs/caller — who a submission comes from, before its payment is verified, so an
 * Idempotency-Key replay never touches payment: the payer an EVM `exact` authorization names
 * (`payload.authorization.from`), else the client address. Rate limits count the verified payer
 * (http/operation.ts); both spell callers `payer:<lowercase address>` or `addr:<ip>`.
 */
import { PAYMENT_SIGNATURE_HEADER, decodePaymentSignature } from "../x402/headers.ts";

export function claimedCallerOf(headers: Headers, clientIp: string): string {
  const header = headers.get(PAYMENT_SIGNATURE_HEADER);
  if (header) {
    const decoded = decodePaymentSignature(header);
    if (decoded.ok) {
      const from = (decoded.payload.payload as { authorization?: { from?: unknown } }).authorization?.from;
      if (typeof from === "string" && /^0x[0-9a-fA-F]{40}$/.test(from)) return `payer:${from.toLowerCase()}`;
    }
  }
  return `addr:${clientIp}`;
}
