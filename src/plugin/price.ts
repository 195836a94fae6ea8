/**
 * @module plugin/price — dollar strings and per-network prices.
 *
 * Prices are declared as USD decimal strings ("0.005"). They are kept as integer micro-dollars
 * (USDC has 6 decimals) so sums of batch prices never drift the way floats do.
 */
import { builtInMainNetworks } from "../x402/price-columns.ts";

/**
 * A price column: a payment family's (the built-in families': EVM `base`, AVM `algorand`; a family
 * loaded from a folder: its own), or a configured network's short name or CAIP-2 id. A network charges
 * the first of its columns a table has (x402's PaymentNetwork.priceColumns, `priceIn`), so a table may
 * add a column for any network; which networks a table must price comes from configuration (`Pricing`),
 * never from a list here.
 */
export type PriceColumn = string;
/** The former name of a price column (plugin files may still import it). */
export type PriceNetwork = PriceColumn;

/** One dollar string for every network, or one per column (a family's, a network's name or CAIP-2 id). */
export type NetworkPrices = string | { readonly [column: PriceColumn]: string };

/** Micro-dollars per price column (the columns a dollar string fills, or the table's own). */
export type PriceTable = Readonly<Record<PriceColumn, number>>;

/** A network price tables are for: a configured one (payments on), or a built-in family's main one (payments off). */
export interface PricedNetwork {
  /** Its short name as configured (base, algorand-testnet, a loaded family's network name). */
  readonly name: string;
  /** Its name in documents: "Base", "Algorand Testnet". */
  readonly label: string;
  /** Its CAIP-2 id. */
  readonly network: string;
  /** The column it is published under and a dollar string fills: its family's (base, algorand, a loaded family's own), else its name. */
  readonly column: PriceColumn;
  /** The columns it charges by, first found wins: its own (name, id), then its family's fallbacks. */
  readonly columns: readonly PriceColumn[];
}

/**
 * The networks price tables are for. Payments on: the configured networks, each of which every table
 * must price (`required`). Payments off: nothing is charged, so a table needs only one well-formed
 * column; the built-in families' main networks (Base, Algorand) then name the documents' columns, take
 * a dollar string's price, and pick the list price (the first of them the table prices, else its
 * first column).
 */
export interface Pricing {
  readonly networks: readonly PricedNetwork[];
  readonly required: boolean;
}

/** A network as x402 resolves it (x402/family.ts PaymentNetwork): short name, CAIP-2 id, the columns it charges by. */
interface NetworkColumns {
  readonly name: string;
  readonly network: string;
  readonly priceColumns: readonly string[];
}

/** "base-sepolia" → "Base Sepolia"; a CAIP-2 id used as a name stays as it is. */
function networkLabel(name: string): string {
  if (name.includes(":")) return name;
  return name
    .split(/[-_]/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(" ");
}

/** The column a network is published under: the first of its columns that is neither its name nor its id (its family's), else its name. */
export function publishedColumn(network: NetworkColumns): PriceColumn {
  return network.priceColumns.find((c) => c !== network.name && c !== network.network) ?? network.name;
}

function pricedNetwork(network: NetworkColumns): PricedNetwork {
  return { name: network.name, label: networkLabel(network.name), network: network.network, column: publishedColumn(network), columns: network.priceColumns };
}

/** Every table prices Base and Algorand: a server taking payments on the built-in families' main networks (the default for code that is given no configuration). */
export const builtInPricing: Pricing = { networks: builtInMainNetworks.map(pricedNetwork), required: true };

/** Payments off: one well-formed column is enough; Base and Algorand name the documents' columns. */
export const paymentsOffPricing: Pricing = { networks: builtInPricing.networks, required: false };

/** What price tables are for on a server taking payments on these networks; none (payments off): `paymentsOffPricing`. */
export function pricingFor(networks: readonly NetworkColumns[]): Pricing {
  return networks.length === 0 ? paymentsOffPricing : { networks: networks.map(pricedNetwork), required: true };
}

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
 * Per-column micro-dollar amounts of a declared price: a dollar string fills each network's published
 * column; a table keeps its columns, needs at least one, and (payments on) must price every configured
 * network by one of its columns. Throws naming the column whose value does not parse, or the
 * configured network the table leaves unpriced.
 */
export function resolvePrices(price: NetworkPrices, pricing: Pricing = builtInPricing): PriceTable {
  const fills = [...new Set(pricing.networks.map((n) => n.column))];
  const example = `{ ${fills.map((c) => `${/^[A-Za-z_$][\w$]*$/.test(c) ? c : JSON.stringify(c)}: "0.005"`).join(", ")} }`;
  const out: Record<string, number> = {};
  const columns = typeof price === "string" ? fills : [...new Set([...fills.filter((c) => Object.hasOwn(price, c)), ...Object.keys(price)])];
  if (columns.length === 0) throw new Error(`a price table needs at least one column, e.g. ${example}`);
  for (const column of columns) {
    const text: unknown = typeof price === "string" ? price : price[column];
    const micros = typeof text === "string" ? parseDollars(text) : undefined;
    if (micros === undefined) {
      throw new Error(`price for ${column} must be a dollar string like "0.005", got ${JSON.stringify(text)}`);
    }
    out[column] = micros;
  }
  if (pricing.required) {
    for (const network of pricing.networks) {
      if (priceIn(out, network.columns) !== undefined) continue;
      throw new Error(
        `price for ${network.name} is missing: this server takes payments on ${network.name} (${network.network}), and every price table prices each configured network by one of its columns (${network.columns.join(", ")}), e.g. ${example}`,
      );
    }
  }
  return out;
}

/**
 * The price a call is recorded at when no network paid for it (payments off, a free call): the first
 * of the pricing's networks the table prices (payments on: the first configured network; off: Base,
 * else Algorand), else the table's first column.
 */
export function listPrice(table: PriceTable, pricing: Pricing = builtInPricing): number {
  for (const network of pricing.networks) {
    const micros = priceIn(table, network.columns);
    if (micros !== undefined) return micros;
  }
  const first = Object.values(table)[0];
  if (first === undefined) throw new Error("the price table has no column");
  return first;
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
