/**
 * @module paid-call/delivery — pay for what is delivered. An endpoint whose work may deliver less
 * than it was asked for (a search reading up to `limit` results, a crawl fetching up to `limit`
 * pages) prices itself as a fixed part plus a price per unit: `priceByUnits(fixed, perUnit, limit)`
 * is its quote (the 402 offer: the limit), `priceByUnits(fixed, perUnit, delivered)` what it
 * delivered (its plugin's `delivered`). The paid-call core then settles the delivered price where
 * the scheme lets the seller choose the amount (`upto`), and elsewhere settles the quote and records
 * the rest as a refund due (refunds/delivery-refunds.ts).
 */
import { formatDollars, type NetworkPrices, parseDollars } from "../plugin/price.ts";

const micros = (usd: string): number => parseDollars(usd) ?? 0;

/** `fixed` plus `units` times `perUnit`, per price column (the fixed part's columns; a column `perUnit` lacks adds nothing). */
export function priceByUnits(fixed: NetworkPrices, perUnit: NetworkPrices, units: number): NetworkPrices {
  if (!Number.isInteger(units) || units < 0) throw new RangeError(`units must be a whole number >= 0, got ${units}`);
  const unitIn = (column: string) => (typeof perUnit === "string" ? micros(perUnit) : micros(perUnit[column] ?? "0"));
  if (typeof fixed === "string") {
    if (typeof perUnit !== "string") throw new TypeError("a per-unit price table needs a fixed price table with the same columns");
    return formatDollars(micros(fixed) + units * unitIn(""));
  }
  return Object.fromEntries(Object.entries(fixed).map(([column, usd]) => [column, formatDollars(micros(usd) + units * unitIn(column))]));
}

/** What the offer's description adds for an endpoint priced by delivery (one resource description covers every offer). */
export const DELIVERY_SENTENCE = " Paid by delivery: upto settles only what is delivered; exact settles this limit and records the rest as a refund due.";
