/** @module x402/evm/buyer — the EVM family's buyer side (x402/buyer-family.ts): a 0x private key, the token's EIP-712 domain, the official exact client. */
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import type { BuyerFamily } from "../buyer-family.ts";

export const evmBuyer: BuyerFamily = {
  name: "evm",
  keyHint: "the paying wallet's private key as 0x-prefixed hex",
  readKey(text) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(text)) return undefined;
    return { family: "evm", address: privateKeyToAccount(text as `0x${string}`).address, secret: text };
  },
  offerProblem(offer) {
    const eip712 = offer.extra as { name?: unknown; version?: unknown } | undefined;
    if (typeof eip712?.name !== "string" || typeof eip712?.version !== "string") return "the 402 offer lacks the token's EIP-712 name and version (extra.name, extra.version)";
    return undefined;
  },
  registerSigner(client, key, network) {
    registerExactEvmScheme(client, { signer: privateKeyToAccount(key.secret as `0x${string}`), networks: [network] });
  },
};
