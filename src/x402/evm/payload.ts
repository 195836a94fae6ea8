/**
 * @module x402/evm/payload — the EIP-3009 `exact` payload (`{signature, authorization}`), the Permit2
 * `upto` payload (`{signature, permit2Authorization}`), and the identity read from either before any
 * check: payer, nonce and the end of its validity.
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

export const UptoEvmPayload = Type.Object({
  signature: Type.String({ pattern: "^0x([0-9a-fA-F]{2})+$" }),
  permit2Authorization: Type.Object({
    from: Address,
    permitted: Type.Object({ token: Address, amount: Uint }),
    spender: Address,
    nonce: Uint,
    deadline: Uint,
    witness: Type.Object({ to: Address, facilitator: Address, validAfter: Uint }),
  }),
});
export type UptoEvmPayload = Static<typeof UptoEvmPayload>;

export function parseExactEvmPayload(payload: PaymentPayload): ExactEvmPayload | undefined {
  return Value.Check(ExactEvmPayload, payload.payload) ? payload.payload : undefined;
}

/** The payer an `exact` authorization names (lower-case), read without checking anything else of the payload. */
export function namedEvmPayer(payload: PaymentPayload): string | undefined {
  const body = payload.payload as { authorization?: { from?: unknown }; permit2Authorization?: { from?: unknown } };
  const from = (body.authorization ?? body.permit2Authorization)?.from;
  return typeof from === "string" && /^0x[0-9a-fA-F]{40}$/.test(from) ? from.toLowerCase() : undefined;
}

const clampSeconds = (value: string): number => {
  const seconds = BigInt(value);
  return seconds > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(seconds);
};

export function identifyEvmPayment(payload: PaymentPayload): IdentifyResult {
  if (payload.accepted.scheme === "upto") {
    // Permit2's nonce is a uint256 (decimal): one use per owner, as EIP-3009's nonce is.
    if (!Value.Check(UptoEvmPayload, payload.payload)) return { ok: false, reason: evmReasons.payload };
    const permit = payload.payload.permit2Authorization;
    return { ok: true, identity: { payer: permit.from.toLowerCase(), nonce: `permit2:${permit.nonce}`, validBefore: clampSeconds(permit.deadline) } };
  }
  const parsed = parseExactEvmPayload(payload);
  if (!parsed) return { ok: false, reason: evmReasons.payload };
  return {
    ok: true,
    identity: {
      payer: parsed.authorization.from.toLowerCase(),
      nonce: parsed.authorization.nonce.toLowerCase(),
      validBefore: clampSeconds(parsed.authorization.validBefore),
    },
  };
}
