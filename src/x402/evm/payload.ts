/**
 * @module x402/evm/payload — the EIP-3009 `exact` payload (`{signature, authorization}`) and the
 * identity read from it before any check: payer, nonce and the end of its validity.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { IdentifyResult } from "../facilitator.ts";
import type { PaymentPayload } from "../messages.ts";
import { evmReasons } from "./errors.ts";

const Address = Type.String({ pattern: "^0x[0-9a-fA-F]{40}$" });
const Uint = Type.String({ pattern: "^[0-9]{1,78}$" });

export const ExactEvmPayload = Type.Object({
  signature: Type.String({ pattern: "^0x([0-9a-fA-F]{2})+$" }),
  authorization: Type.Object({
    from: Address,
    to: Address,
    value: Uint,
    validAfter: Uint,
    validBefore: Uint,
    nonce: Type.String({ pattern: "^0x[0-9a-fA-F]{64}$" }),
  }),
});
export type ExactEvmPayload = Static<typeof ExactEvmPayload>;

export function parseExactEvmPayload(payload: PaymentPayload): ExactEvmPayload | undefined {
  return Value.Check(ExactEvmPayload, payload.payload) ? payload.payload : undefined;
}

/** The payer an `exact` authorization names (lower-case), read without checking anything else of the payload. */
export function namedEvmPayer(payload: PaymentPayload): string | undefined {
  const from = (payload.payload as { authorization?: { from?: unknown } }).authorization?.from;
  return typeof from === "string" && /^0x[0-9a-fA-F]{40}$/.test(from) ? from.toLowerCase() : undefined;
}

export function identifyEvmPayment(payload: PaymentPayload): IdentifyResult {
  const parsed = parseExactEvmPayload(payload);
  if (!parsed) return { ok: false, reason: evmReasons.payload };
  const validBefore = BigInt(parsed.authorization.validBefore);
  return {
    ok: true,
    identity: {
      payer: parsed.authorization.from.toLowerCase(),
      nonce: parsed.authorization.nonce.toLowerCase(),
      validBefore: validBefore > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(validBefore),
    },
  };
}
