/**
 * @module x402/refund-senders — one refund sender per configured network that has a refund key.
 * Each family's sender (evm/refund-sender.ts with viem, avm/refund-sender.ts with algosdk: ~15 MB
 * of RSS together with the settlement code) is imported only when a network of that family has a
 * key, so a server without refund keys never carries them for refunds.
 */
import type { ConfiguredNetwork } from "./config.ts";
import { registeredFamily } from "./family-registry.ts";
import type { RefundSender } from "./refund.ts";

export interface RefundSenderOptions {
  readonly pollingIntervalMs?: number;
  readonly fetch?: typeof fetch;
}

/** One sender per configured network that has a refund key; empty when none has. */
export async function loadRefundSenders(networks: readonly ConfiguredNetwork[], options: RefundSenderOptions = {}): Promise<Map<string, RefundSender>> {
  const senders = new Map<string, RefundSender>();
  const poll = options.pollingIntervalMs !== undefined ? { pollingIntervalMs: options.pollingIntervalMs } : {};
  for (const network of networks) {
    if (network.family === "loaded") {
      const sender = await registeredFamily(network.familyName)?.loadRefundSender?.(network, { ...poll, ...(options.fetch ? { fetch: options.fetch } : {}) });
      if (sender) senders.set(network.network, sender);
      continue;
    }
    if (network.family === "evm" && network.refundPrivateKey) {
      const { createEvmRefundSender } = await import("./evm/refund-sender.ts");
      senders.set(network.network, createEvmRefundSender({ network, ...poll }));
    }
    if (network.family === "avm" && network.refundMnemonic) {
      const { createAvmRefundSender } = await import("./avm/refund-sender.ts");
      senders.set(network.network, createAvmRefundSender({ network, ...poll, ...(options.fetch ? { fetch: options.fetch } : {}) }));
    }
  }
  return senders;
}
