/**
 * @module x402/family-registry — the payment families loaded from the folders `x402.families` names
 * (the built-in evm and avm are not here: they are bundled). Loading a folder imports its
 * `family.ts` and registers the `family` it exports; config.ts resolves its networks, the payer
 * parser, the rails and the refund senders ask here.
 */
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { PaymentFamily } from "./family.ts";
import { builtInPriceColumns, fallsBackOnBuiltIn } from "./price-columns.ts";

const builtIn = new Set(["evm", "avm"]);
const registered = new Map<string, PaymentFamily>();

export function registerFamily(family: PaymentFamily): void {
  if (builtIn.has(family.name)) throw new Error(`payment family ${family.name} is built in`);
  if (!/^[a-z][a-z0-9-]*$/.test(family.name)) throw new Error(`payment family name ${JSON.stringify(family.name)}: lowercase letters, digits and -`);
  if (!fallsBackOnBuiltIn(family.priceColumns)) {
    const builtIn = builtInPriceColumns.map((columns) => columns[0]).join(" or ");
    throw new Error(`payment family ${family.name}: priceColumns ${JSON.stringify(family.priceColumns)} must name, after its own, a column a built-in family charges by (${builtIn}), so that the built-in files' price tables price its networks`);
  }
  registered.set(family.name, family);
}

export function registeredFamily(name: string): PaymentFamily | undefined {
  return registered.get(name);
}

export function registeredFamilies(): readonly PaymentFamily[] {
  return [...registered.values()];
}

function isFamily(value: unknown): value is PaymentFamily {
  const f = value as Partial<PaymentFamily> | undefined;
  return typeof f === "object" && f !== null && typeof f.name === "string" && typeof f.namespace === "string" && Array.isArray(f.priceColumns) && typeof f.identify === "function" && typeof f.namedPayer === "function";
}

/** Imports `<folder>/family.ts` of each folder and registers its `family`; throws with the folder when it exports none. */
export async function loadFamilyFolders(folders: readonly string[], base = process.cwd()): Promise<PaymentFamily[]> {
  const loaded: PaymentFamily[] = [];
  for (const folder of folders) {
    const file = join(isAbsolute(folder) ? folder : resolve(base, folder), "family.ts");
    let module: { family?: unknown };
    try {
      module = (await import(pathToFileURL(file).href)) as { family?: unknown };
    } catch (error) {
      throw new Error(`payment family ${folder}: cannot load ${file}: ${(error as Error).message}`);
    }
    if (!isFamily(module.family)) throw new Error(`payment family ${folder}: family.ts must export \`family\` (x402/family.ts PaymentFamily)`);
    registerFamily(module.family);
    loaded.push(module.family);
  }
  return loaded;
}
