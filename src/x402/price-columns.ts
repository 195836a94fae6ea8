/**
 * @module x402/price-columns — the price-table columns the built-in payment families charge by, as
 * each declares them in its folder (EVM: evm/config.ts, AVM: avm/config.ts), and their main networks
 * (Base, Algorand): what a server is priced for when payments are off, and what built-in plugin files
 * price. A family loaded from a folder names its own column first and then one of these
 * (family-registry.ts checks it), so built-in price tables price its networks too.
 */
import { avmPriceColumns } from "./avm/config.ts";
import { evmPriceColumns } from "./evm/config.ts";
import { priceColumnsOf } from "./network-config.ts";
import { knownNetworks } from "./networks.ts";

/** One entry per built-in family: the columns its networks charge by, its own first. */
export const builtInPriceColumns: readonly (readonly string[])[] = [evmPriceColumns, avmPriceColumns];

/** Whether a loaded family's columns reach one a built-in family prices by (so every built-in price table prices its networks). */
export function fallsBackOnBuiltIn(columns: readonly string[]): boolean {
  return columns.some((column) => builtInPriceColumns.some((family) => family.includes(column)));
}

/** Each built-in family's main network (the known network named as its own column: base, algorand), as configuration would resolve it. */
export const builtInMainNetworks: readonly { readonly name: string; readonly network: string; readonly priceColumns: readonly string[] }[] = builtInPriceColumns.map((columns) => {
  const known = knownNetworks.find((n) => n.name === columns[0]);
  if (!known) throw new Error(`no known network named ${columns[0]}`);
  return { name: known.name, network: known.network, priceColumns: priceColumnsOf(known.name, known.network, columns) };
});
