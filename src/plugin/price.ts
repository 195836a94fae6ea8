/**
 * @module plugin/price — dollar strings and per-network prices.
 *
 * Prices are declared as USD decimal strings ("0.005"). They are kept as integer micro-dollars
 * (USDC has 6 decimals) so sums of batch prices never drift the way floats do.
 */
import { builtInPriceColumns } from "../x402/price-columns.ts";

/**
 * A price column: a payment family's (the built-in families': EVM `base`, AVM `algorand`; a family
 * loaded from a folder: its own), or a configured network's short name or CAIP-2 id. A network charges
 * the first of its columns a table has (x402's PaymentNetwork.priceColumns, `priceIn`), so a table may
 * add a column for any network; which columns a table must have comes from the families
 * (x402/price-columns.ts), never from a list here.
 */
export type PriceColumn = string;
/** The former name of a price column (plugin files may still import it). */
export type PriceNetwork = PriceColumn;

/** One dollar string for every network, or one per column (each built-in family's, and any network's name or CAIP-2 id). */
export type NetworkPrices = string | { readonly [column: PriceColumn]: string };

/** Micro-dollars per price column (every built-in family's column, and the columns the table added). */
export type PriceTable = Readonly<Record<PriceColumn, number>>;

/** What every table must price: one entry per payment family, the columns its networks charge by (its own first). */
export type FamilyColumns = readonly (readonly PriceColumn[])[];

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

/**
 * Per-column micro-dollar amounts of a declared price: a dollar string fills each family's own column;
 * a table keeps its columns and must price every family (its own column or one it falls back on).
 * Throws naming the column whose value does not parse, or the family the table leaves unpriced.
 */
export function resolvePrices(price: NetworkPrices, families: FamilyColumns = builtInPriceColumns): PriceTable {
  const own = families.map((columns) => columns[0]!);
  const out: Record<string, number> = {};
  const columns = typeof price === "string" ? own : [...new Set([...own.filter((c) => Object.hasOwn(price, c)), ...Object.keys(price)])];
  for (const column of columns) {
    const text: unknown = typeof price === "string" ? price : price[column];
    const micros = typeof text === "string" ? parseDollars(text) : undefined;
    if (micros === undefined) {
      throw new Error(`price for ${column} must be a dollar string like "0.005", got ${JSON.stringify(text)}`);
    }
    out[column] = micros;
  }
  for (const family of families) {
    if (priceIn(out, family) === undefined) throw new Error(`price for ${family.join(" or ")} is missing: every price table prices each payment family, e.g. { ${own.map((c) => `${c}: "0.005"`).join(", ")} }`);
  }
  return out;
}

/** The price a call is recorded at when no network paid for it (payments off): the first family's column (EVM's `base`). */
export function listPrice(table: PriceTable, families: FamilyColumns = builtInPriceColumns): number {
  for (const family of families) {
    const micros = priceIn(table, family);
    if (micros !== undefined) return micros;
  }
  throw new Error("the price table prices no payment family");
}

/** The first of a network's price columns (x402's ResolvedNetwork.priceColumns) the table has; undefined when none. */
export function priceIn<T>(table: Readonly<Record<string, T>>, columns: readonly string[]): T | undefined {
  for (const column of columns) if (Object.hasOwn(table, column)) return table[column];
  return undefined;
}

/** Per-column dollar strings (for docs, catalogues and 402 offers). */
export function formatPrices(micros: PriceTable): Record<PriceColumn, string> {
  const out: Record<string, string> = {};
  for (const [column, value] of Object.entries(micros)) out[column] = formatDollars(value);
  return out;
}
