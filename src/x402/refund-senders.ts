/**
 * @module x402/refund-senders — one refund sender per configured network that has a refund key,
 * from its family's `loadRefundSender`. The families (and with them viem and algosdk: ~15 MB of
 * RSS) are imported only when a network is configured, so a server with payments off never carries them.
 */
import type { ConfiguredNetwork } from "./config.ts";
import type { RefundSender } from "./refund.ts";

export interface RefundSenderOptions {
  readonly pollingIntervalMs?: number;
  readonly fetch?: typeof fetch;
}

/** One sender per configured network that has a refund key; empty when none has. */
export async function loadRefundSenders(networks: readonly ConfiguredNetwork[], options: RefundSenderOptions = {}): Promise<Map<string, RefundSender>> {
  const senders = new Map<string, RefundSender>();
  if (networks.length === 0) return senders;
  const { familyOf } = await import("./families.ts");
  for (const network of networks) {
    const sender = await familyOf(network).loadRefundSender?.(network, options);
    if (sender) senders.set(network.network, sender);
  }
  return senders;
}
