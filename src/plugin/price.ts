/**
 * @module plugin/price — dollar strings and per-network prices.
 *
 * Prices are declared as USD decimal strings ("0.005"). They are kept as integer micro-dollars
 * (USDC has 6 decimals) so sums of batch prices never drift the way floats do.
 */

/**
 * The columns every price table has (the spec's tables price Base and Algorand). A configured network
 * charges the first column of its own that a table has: its short name, its CAIP-2 id, then the columns
 * its payment family names (x402/family.ts: EVM → base, AVM → algorand; a new family names its own
 * and one of these to fall back on), so a table may add a column for any network.
 */
export const priceNetworks = ["base", "algorand"] as const;
export type PriceNetwork = (typeof priceNetworks)[number];

/** One dollar string for every network, or one per column: base and algorand, and any network's name or CAIP-2 id. */
export type NetworkPrices = string | ({ readonly [N in PriceNetwork]: string } & { readonly [column: string]: string });

/** Micro-dollars per price column (always base and algorand). */
export type PriceTable = Readonly<Record<PriceNetwork, number>> & Readonly<Record<string, number>>;

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

/** Per-column micro-dollar amounts of a declared price; throws with the offending value when it does not parse. */
export function resolvePrices(price: NetworkPrices): PriceTable {
  const out: Record<string, number> = {};
  const columns = typeof price === "string" ? priceNetworks : [...new Set([...priceNetworks, ...Object.keys(price)])];
  for (const column of columns) {
    const text: unknown = typeof price === "string" ? price : price[column];
    const micros = typeof text === "string" ? parseDollars(text) : undefined;
    if (micros === undefined) {
      throw new Error(`price for ${column} must be a dollar string like "0.005", got ${JSON.stringify(text)}`);
    }
    out[column] = micros;
  }
  return out as PriceTable;
}

/** The first of a network's price columns (x402's ResolvedNetwork.priceColumns) the table has; undefined when none. */
export function priceIn<T>(table: Readonly<Record<string, T>>, columns: readonly string[]): T | undefined {
  for (const column of columns) if (Object.hasOwn(table, column)) return table[column];
  return undefined;
}

/** Per-column dollar strings (for docs, catalogues and 402 offers). */
export function formatPrices(micros: PriceTable): Record<PriceNetwork, string> & Record<string, string> {
  const out: Record<string, string> = {};
  for (const [column, value] of Object.entries(micros)) out[column] = formatDollars(value);
  return out as Record<PriceNetwork, string> & Record<string, string>;
}
