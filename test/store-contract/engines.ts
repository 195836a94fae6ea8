/**
 * The core families' contracts run on the whole store as the service opens it: SQLite (two
 * `openStore` on one data folder) and a real PostgreSQL (two pools from `openPgFacets`), through the
 * shared two-engine harness (test/support/store-engines.ts). Call `storeEngines()` at the top of a
 * test file.
 */
import { openPgFacets, openStore, type StoreFacets } from "../../src/database.ts";
import { engineInstances, type Instances as EngineInstances, type StoreEngine } from "../support/store-engines.ts";

export { withInstances } from "../support/store-engines.ts";

export type Facets = Pick<StoreFacets, "settings" | "pluginStore" | "requestOutcomes" | "figures" | "receipts" | "instances">;
export type Instances = EngineInstances<Facets>;
export type Engine = StoreEngine<Facets>;

const facetsOf = (f: Partial<StoreFacets>): Facets => {
  const { settings, pluginStore, requestOutcomes, figures, receipts, instances } = f;
  if (!settings || !pluginStore || !requestOutcomes || !figures || !receipts || !instances) throw new Error("a core family has no PostgreSQL engine");
  return { settings, pluginStore, requestOutcomes, figures, receipts, instances };
};

export function storeEngines(family: string): Engine[] {
  return engineInstances<Facets>(family, {
    sqlite(dir) {
      const store = openStore(dir);
      return { value: store, close: () => store.close() };
    },
    async pg(url) {
      const facets = await openPgFacets(url, { max: 4 });
      return { value: facetsOf(facets), close: () => facets.close() };
    },
  });
}
