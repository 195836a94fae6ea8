/**
 * @module x402/price-columns — the price-table columns the built-in payment families charge by, as
 * each declares them in its folder (EVM: evm/config.ts, AVM: avm/config.ts). A dollar-string price
 * fills each and every price table must price each (plugin/price.ts); a family loaded from a folder
 * names its own column first and then one of these (family-registry.ts checks it), so every table
 * prices its networks too.
 */
import { avmPriceColumns } from "./avm/config.ts";
import { evmPriceColumns } from "./evm/config.ts";

/** One entry per built-in family: the columns its networks charge by, its own first. */
export const builtInPriceColumns: readonly (readonly string[])[] = [evmPriceColumns, avmPriceColumns];

/** Whether a loaded family's columns reach one a built-in family prices by (so every price table prices its networks). */
export function fallsBackOnBuiltIn(columns: readonly string[]): boolean {
  return columns.some((column) => builtInPriceColumns.some((family) => family.includes(column)));
}
