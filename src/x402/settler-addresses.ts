/**
 * @module x402/settler-addresses — the settlement signers this instance uses, as `network|address`:
 * the EVM settler key's account and the Algorand fee payer, on networks that settle locally (a
 * remote facilitator signs with its own keys). Instances heartbeat them so `tollbooth doctor` can
 * refuse two live instances sharing one (they would collide on its nonce).
 */
import type { ConfiguredNetwork } from "./config.ts";
import { familyOf } from "./families.ts";

export async function settlerAddresses(networks: readonly ConfiguredNetwork[]): Promise<string[]> {
  const found = new Set<string>();
  for (const network of networks) {
    if (network.settlement !== "local") continue;
    const address = await familyOf(network).settlerAddress?.(network);
    if (address) found.add(`${network.network}|${address}`);
  }
  return [...found].sort();
}
