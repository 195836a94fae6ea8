/**
 * @module x402/pricing — USD decimal strings to atomic token amounts, exactly (BigInt, never floats),
 * and the offers (PaymentRequirements) for one priced operation.
 */
import type { PaymentRequirements } from "./messages.ts";
import type { PaymentNetwork } from "./family.ts";

const USD_PATTERN = /^(0|[1-9][0-9]{0,8})(?:\.([0-9]{1,18}))?$/;

/** "0.005" with 6 decimals → 5000n. Throws when the string is not a plain non-negative decimal or has more precision than the token. */
export function usdToAtomic(usd: string, decimals: number): bigint {
  const match = USD_PATTERN.exec(usd);
  if (!match) throw new RangeError(`price must be a decimal USD string like "0.005", got ${JSON.stringify(usd)}`);
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > decimals) throw new RangeError(`price ${usd} has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/** 5000n with 6 decimals → "0.005". */
export function atomicToUsd(amount: bigint, decimals: number): string {
  const base = 10n ** BigInt(decimals);
  const fraction = (amount % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return fraction ? `${amount / base}.${fraction}` : `${amount / base}`;
}

/** A price for every network, or per network keyed by short name ("base") or CAIP-2 id. */
export type PriceUsd = string | { readonly [networkOrName: string]: string };

/** The price in USD for one configured network, or undefined when the operation is not sold there. */
export function priceFor(price: PriceUsd, network: PaymentNetwork): string | undefined {
  if (typeof price === "string") return price;
  return price[network.name] ?? price[network.network];
}

export interface OfferOptions {
  readonly maxTimeoutSeconds: number;
  /** Extra fields a mechanism needs in requirements (EVM domain; AVM fee payer), per network id. */
  readonly extraFor: (network: PaymentNetwork) => Record<string, unknown>;
}

/** One `exact` offer per configured network the operation has a price for; a zero price is never offered. */
export function buildOffers(price: PriceUsd, networks: readonly PaymentNetwork[], options: OfferOptions): PaymentRequirements[] {
  const offers: PaymentRequirements[] = [];
  for (const network of networks) {
    const usd = priceFor(price, network);
    if (usd === undefined) continue;
    const amount = usdToAtomic(usd, network.decimals);
    if (amount <= 0n) throw new RangeError(`price for ${network.name} must be above zero`);
    offers.push({
      scheme: "exact",
      network: network.network,
      amount: amount.toString(),
      asset: network.asset,
      payTo: network.payTo,
      maxTimeoutSeconds: options.maxTimeoutSeconds,
      extra: options.extraFor(network),
    });
  }
  return offers;
}
