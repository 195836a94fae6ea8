/**
 * @module buyer/vetting-signer — the one place a buyer signs: the seller's offers are vetted
 * (buyer/offer.ts: network, asset, fields, --max-usd, the daily cap) before the official x402
 * client (@x402/core, with the paying family's scheme: x402/buyer-family.ts) signs exactly the offer vetted, and
 * the signature is written to the spend log the moment it exists. Shared by the HTTP buyer and the
 * MCP buyer.
 */
import { x402Client } from "@x402/core/client";
import { buyerFamily } from "../x402/buyer-families.ts";
import { type BuyerKey, BuyerRefusal } from "./key-file.ts";
import { type OfferRules, type Requirement, vetOffer } from "./offer.ts";
import { checkSignedOffer, type PaidTerms, type TermsCheck } from "./signed-terms.ts";
import { appendSpend, signedToday } from "./spend-log.ts";

/** The offer rules the buyer vets by (network, asset, caps: offer.ts), where it logs what it spends, and how it signs. */
export interface Budget extends Pick<OfferRules, "network" | "asset" | "decimals" | "maxUsd" | "dailyCapUsd"> {
  readonly spendLog: string;
  /** Algorand: the algod the client asks for suggested params; absent: the official client's public default (AlgoNode) for mainnet or testnet. */
  readonly algodUrl?: string | undefined;
  readonly now?: () => Date;
  /** Refuse a seller whose offer (before paying) or receipt (after) is not signed by a key bound to it. */
  readonly requireSigned?: boolean | undefined;
}

export interface Paid {
  readonly usd: number;
  readonly network: string;
  readonly payTo: string;
}

type PaymentRequired = Parameters<x402Client["createPaymentPayload"]>[0];
type PaymentPayload = Awaited<ReturnType<x402Client["createPaymentPayload"]>>;

const sameOffer = (a: Requirement, b: Requirement) =>
  a.scheme === b.scheme && a.network === b.network && a.asset.toLowerCase() === b.asset.toLowerCase() && a.amount === b.amount && a.payTo.toLowerCase() === b.payTo.toLowerCase();

export function checkBudget(budget: Budget): void {
  if (!(budget.maxUsd >= 0) || !(budget.dailyCapUsd >= 0)) throw new BuyerRefusal("--max-usd and --daily-cap-usd must be numbers of dollars, 0 or more");
}

/** Vets `required.accepts` against the budget, then signs the vetted offer once; throws BuyerRefusal (nothing signed) when it does not pass. */
export async function signVetted(
  key: BuyerKey,
  required: PaymentRequired,
  budget: Budget,
  resource: { readonly url: string; readonly tool?: string; readonly fetch: typeof fetch },
): Promise<{ payload: PaymentPayload; paid: Paid; terms: PaidTerms; offer: TermsCheck }> {
  const now = budget.now ?? (() => new Date());
  const offer = vetOffer(required.accepts, {
    network: budget.network,
    asset: budget.asset,
    decimals: budget.decimals,
    maxUsd: budget.maxUsd,
    dailyCapUsd: budget.dailyCapUsd,
    spentTodayUsd: signedToday(budget.spendLog, now()),
    payer: key.address,
  });
  const vetted = offer.requirement;
  const offerCheck = await checkSignedOffer(required, vetted, { sellerUrl: resource.url, fetch: resource.fetch }, now());
  if (budget.requireSigned && !offerCheck.valid) throw new BuyerRefusal(`--require-signed: ${offerCheck.detail}; nothing was signed`);
  // The selector only ever hands the client the offer vetted above; the spend controls repeat its cap.
  const client = new x402Client((_version, accepts) => {
    const chosen = accepts.find((a) => sameOffer(a as Requirement, vetted));
    if (!chosen) throw new BuyerRefusal("the offer to sign is not the one vetted: refused");
    return chosen;
  });
  buyerFamily(key.family).registerSigner(client, key, vetted.network as `${string}:${string}`, { algodUrl: budget.algodUrl });
  client.setSpendControls({ maxAmountPerPayment: false, allowedAssets: [{ network: vetted.network as `${string}:${string}`, asset: vetted.asset, maxAmountPerPayment: vetted.amount }] });
  const payload = await client.createPaymentPayload(required);
  appendSpend(budget.spendLog, { event: "signed", at: now().toISOString(), url: resource.url, ...(resource.tool ? { tool: resource.tool } : {}), network: vetted.network, asset: vetted.asset, pay_to: vetted.payTo, amount: vetted.amount, usd: offer.usd });
  const terms: PaidTerms = { resourceUrl: (required as { resource?: { url?: string } }).resource?.url, payer: key.address, network: vetted.network, payTo: vetted.payTo };
  return { payload, paid: { usd: offer.usd, network: vetted.network, payTo: vetted.payTo }, terms, offer: offerCheck };
}

/** What the buyer keeps of a seller's settlement response. */
export interface Receipt {
  readonly success: boolean;
  readonly transaction?: string;
  readonly network?: string;
  readonly payer?: string;
}

export const toReceipt = (settle: { success: boolean; transaction?: string; network?: string; payer?: string }): Receipt => ({
  success: settle.success,
  ...(settle.transaction ? { transaction: settle.transaction } : {}),
  ...(settle.network ? { network: settle.network } : {}),
  ...(settle.payer ? { payer: settle.payer } : {}),
});

/** The --json argument, refused unless it is JSON. */
export function checkJson(json: string | undefined, flag = "--json"): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new BuyerRefusal(`${flag} is not JSON: ${(error as Error).message}`);
  }
}
