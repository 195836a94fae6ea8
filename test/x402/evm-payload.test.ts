import { describe, expect, it } from "bun:test";
import type { PaymentPayload } from "../../src/x402/messages.ts";
import { identifyEvmPayment, namedEvmPayer } from "../../src/x402/evm/payload.ts";

const from = `0x${"ab".repeat(20)}`;
const accepted = { scheme: "upto", network: "eip155:8453", amount: "17000", asset: `0x${"cd".repeat(20)}`, payTo: `0x${"ef".repeat(20)}`, maxTimeoutSeconds: 300, extra: {} };
const upto = (permit: Record<string, unknown>): PaymentPayload =>
  ({
    x402Version: 2,
    accepted,
    payload: {
      signature: "0x1234",
      permit2Authorization: {
        from,
        permitted: { token: accepted.asset, amount: "17000" },
        spender: `0x${"12".repeat(20)}`,
        nonce: "123456789",
        deadline: "1800000000",
        witness: { to: accepted.payTo, facilitator: `0x${"34".repeat(20)}`, validAfter: "0" },
        ...permit,
      },
    },
  }) as PaymentPayload;

describe("x402/evm/payload (upto)", () => {
  it("reads a Permit2 upto payload's payer, nonce and deadline, the nonce kept apart from EIP-3009's", () => {
    expect(identifyEvmPayment(upto({}))).toEqual({ ok: true, identity: { payer: from, nonce: "permit2:123456789", validBefore: 1_800_000_000 } });
    expect(namedEvmPayer(upto({}))).toBe(from);
  });

  it("refuses an upto payload that is not a Permit2 authorization", () => {
    expect(identifyEvmPayment(upto({ nonce: "0xzz" })).ok).toBe(false);
    expect(identifyEvmPayment({ ...upto({}), payload: { signature: "0x12", authorization: {} } } as PaymentPayload).ok).toBe(false);
  });
});
