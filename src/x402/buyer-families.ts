/** @module x402/buyer-families — the buyer side of each built-in family, by family name (x402/buyer-family.ts says what one gives). */
import { avmBuyer } from "./avm/buyer.ts";
import type { BuyerFamily } from "./buyer-family.ts";
import { evmBuyer } from "./evm/buyer.ts";

const buyers: Readonly<Record<string, BuyerFamily>> = { evm: evmBuyer, avm: avmBuyer };

export function buyerFamily(name: string): BuyerFamily {
  const family = buyers[name];
  if (!family) throw new Error(`no buyer side for payment family "${name}"`);
  return family;
}
