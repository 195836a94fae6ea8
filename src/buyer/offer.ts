/**
 * @module buyer/offer — which of a seller's 402 offers the buyer may sign, decided before any
 * signature: the exact scheme on the chosen network, the network's USDC (or, on a network we do
 * not know, the asset the buyer named), every field the client needs (EVM: the token's EIP-712
 * domain; Algorand: Algorand addresses for payTo and any fee payer), and a price within the
 * per-call and daily caps.
 */
import { buyerFamily } from "../x402/buyer-families.ts";
import { type Family, findKnownNetwork, type NetworkInfo, normalizeNetwork } from "../x402/networks.ts";
import { BuyerRefusal } from "./key-file.ts";

export interface Requirement {
  readonly scheme: string;
  readonly network: string;
  readonly amount: string;
  readonly asset: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  readonly extra?: Record<string, unknown>;
}

export interface OfferRules {
  /** `base`, `base-sepolia`, `algorand` or a CAIP-2 id. */
  readonly network: string;
  /** Required for a network not in our table: the asset accepted there (and its decimals). */
  readonly asset?: string | undefined;
  readonly decimals?: number | undefined;
  readonly maxUsd: number;
  readonly dailyCapUsd: number;
  readonly spentTodayUsd: number;
  /** The paying account (Algorand: a fee payer naming it would have the buyer sign the fee transaction too). */
  readonly payer?: string | undefined;
}

export interface VettedOffer {
  readonly requirement: Requirement;
  readonly usd: number;
}

const isAddressLike = (value: unknown) => typeof value === "string" && value.length > 0;

export interface BuyNetwork {
  /** CAIP-2 id (Algorand: the 32-character form the official packages use). */
  readonly network: string;
  readonly family: Family;
  readonly known?: NetworkInfo;
}

/** The network the buyer chose (a name from our table or a CAIP-2 id) and which family signs on it. */
export function buyNetwork(chosen: string): BuyNetwork {
  const known = findKnownNetwork(chosen);
  if (known) return { network: known.network, family: known.family, known };
  if (!/^[a-z0-9-]{3,8}:[A-Za-z0-9_+\-/=]{1,64}$/.test(chosen)) throw new BuyerRefusal(`unknown network "${chosen}": give base, base-sepolia, algorand, algorand-testnet or a CAIP-2 id`);
  if (chosen.startsWith("algorand:")) return { network: normalizeNetwork(chosen), family: "avm" };
  if (chosen.startsWith("eip155:")) return { network: chosen, family: "evm" };
  throw new BuyerRefusal(`network ${chosen} is of a family this buyer cannot sign for (it signs on eip155:* and algorand:*)`);
}

export function vetOffer(accepts: unknown, rules: OfferRules): VettedOffer {
  const { network, family, known } = buyNetwork(rules.network);
  const asset = known?.asset ?? rules.asset;
  if (!asset) throw new BuyerRefusal(`network ${network} is not one we know: name the asset you accept there with --asset ADDRESS`);
  const decimals = known?.decimals ?? rules.decimals ?? 6;
  if (!Array.isArray(accepts) || accepts.length === 0) throw new BuyerRefusal("the 402 lists no payment offer (accepts is empty or missing)");
  const onNetwork = accepts.filter((a): a is Requirement => typeof a === "object" && a !== null && typeof (a as Requirement).network === "string" && normalizeNetwork((a as Requirement).network) === network);
  if (onNetwork.length === 0) throw new BuyerRefusal(`the seller offers no payment on ${network} (it offers ${accepts.map((a) => String((a as Requirement)?.network)).join(", ")})`);
  const exact = onNetwork.filter((a) => a.scheme === "exact");
  if (exact.length === 0) throw new BuyerRefusal(`the seller's offer on ${network} is not the exact scheme`);
  const offer = exact.find((a) => typeof a.asset === "string" && a.asset.toLowerCase() === asset.toLowerCase());
  if (!offer) throw new BuyerRefusal(`the seller asks for asset ${exact.map((a) => String(a.asset)).join(", ")} on ${network}, not ${asset}: refused`);
  const missing = (["amount", "payTo", "maxTimeoutSeconds"] as const).filter((f) => (f === "maxTimeoutSeconds" ? typeof offer[f] !== "number" : !isAddressLike(offer[f])));
  if (missing.length > 0) throw new BuyerRefusal(`the 402 offer lacks ${missing.join(", ")}: the client cannot sign it`);
  if (!/^\d{1,30}$/.test(offer.amount)) throw new BuyerRefusal(`the 402 amount "${offer.amount}" is not an integer of atomic units`);
  const problem = buyerFamily(family).offerProblem(offer, rules.payer ?? "");
  if (problem) throw new BuyerRefusal(problem);
  const usd = Number(offer.amount) / 10 ** decimals;
  if (usd > rules.maxUsd) throw new BuyerRefusal(`the price is $${usd} and --max-usd is $${rules.maxUsd}: refused, nothing was signed`);
  if (rules.spentTodayUsd + usd > rules.dailyCapUsd + 1e-9) {
    throw new BuyerRefusal(`$${rules.spentTodayUsd.toFixed(6)} was signed today (UTC) and this call costs $${usd}: over the daily cap of $${rules.dailyCapUsd}; refused, nothing was signed`);
  }
  return { requirement: offer, usd };
}
