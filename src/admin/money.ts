/** @module admin/money — atomic token amounts as dollars, with each network's decimals (USDC: 6). */
import { findKnownNetwork } from "../x402/networks.ts";

export function usdOf(network: string, atomic: number): number {
  const decimals = findKnownNetwork(network)?.decimals ?? 6;
  return atomic / 10 ** decimals;
}
