/**
 * @module plugin/price — dollar strings and per-network prices.
 *
 * Prices are declared as USD decimal strings ("0.005"). They are kept as integer micro-dollars
 * (USDC has 6 decimals) so sums of batch prices never drift the way floats do.
 */

/** The networks a price may be given for; the x402 layer maps them to CAIP-2 ids. */
export const priceNetworks = ["base", "algorand"] as const;
export type PriceNetwork = (typeof priceNetworks)[number];

/** One dollar string for every network, or one per network. */
export type NetworkPrices = string | { readonly [N in PriceNetwork]: string };

const dollarPattern = /^(0|[1-9]\d{0,5})(\.\d{1,6})?$/;

/** "0.005" → 5000 micro-dollars; undefined when the string is not a plain dollar amount with at most 6 decimals. */
export function parseDollars(value: string): number | undefined {
  if (!dollarPattern.test(value)) return undefined;
  const [whole = "0", fraction = ""] = value.split(".");
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0"));
}

/** 5000 → "0.005" (no trailing zeros, at least one digit after the point only when needed). */
export function formatDollars(micros: number): string {
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000).padStart(6, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** Per-network micro-dollar amounts of a declared price; throws with the offending value when it does not parse. */
export function resolvePrices(price: NetworkPrices): Record<PriceNetwork, number> {
  const out = {} as Record<PriceNetwork, number>;
  for (const network of priceNetworks) {
    const text = typeof price === "string" ? price : price[network];
    const micros = typeof text === "string" ? parseDollars(text) : undefined;
    if (micros === undefined) {
      throw new Error(`price for ${network} must be a dollar string like "0.005", got ${JSON.stringify(text)}`);
    }
    out[network] = micros;
  }
  return out;
}

/** Per-network dollar strings (for docs, catalogues and 402 offers). */
export function formatPrices(micros: Record<PriceNetwork, number>): Record<PriceNetwork, string> {
  return { base: formatDollars(micros.base), algorand: formatDollars(micros.algorand) };
}
