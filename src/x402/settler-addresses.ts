/**
 * @module x402/settler-addresses — the settlement signers this instance uses, as `network|address`:
 * the EVM settler key's account and the Algorand fee payer, on networks that settle locally (a
 * remote facilitator signs with its own keys). Instances heartbeat them so `tollbooth doctor` can
 * refuse two live instances sharing one (they would collide on its nonce).
 */
import type { ConfiguredNetwork } from "./config.ts";

export async function settlerAddresses(networks: readonly ConfiguredNetwork[]): Promise<string[]> {
  const found = new Set<string>();
  for (const n of networks) {
    if (n.settlement !== "local") continue;
    if (n.family === "evm" && n.settlerPrivateKey) {
      const { privateKeyToAccount } = await import("viem/accounts");
      found.add(`${n.network}|${privateKeyToAccount(n.settlerPrivateKey).address.toLowerCase()}`);
    } else if (n.family === "avm" && n.feePayerMnemonic) {
      const { mnemonicToSecretKey } = await import("algosdk");
      found.add(`${n.network}|${mnemonicToSecretKey(n.feePayerMnemonic).addr.toString()}`);
    }
  }
  return [...found].sort();
}
