/**
 * The two engines a store contract runs on, each opened twice on one fresh database as two
 * instances would: SQLite (two `openStore` on one data folder) and a real PostgreSQL (two pools
 * from `openPgFacets`). Call `storeEngines()` at the top of a test file: it starts at most one
 * PostgreSQL for the file (beforeAll) and stops it after; the PostgreSQL engine is skipped, with
 * the reason printed, only where PostgreSQL cannot be installed.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPgFacets, openStore, type StoreFacets } from "../../src/database.ts";
import { postgresUnavailable, startPostgres, type TestPostgres } from "../support/postgres.ts";

export type Facets = Pick<StoreFacets, "settings" | "pluginStore" | "requestOutcomes" | "figures" | "receipts" | "instances">;

export interface Instances {
  readonly one: Facets;
  readonly two: Facets;
  close(): Promise<void>;
}

export interface Engine {
  readonly name: string;
  readonly skip: boolean;
  open(): Promise<Instances>;
}

const facetsOf = (f: Partial<StoreFacets>): Facets => {
  const { settings, pluginStore, requestOutcomes, figures, receipts, instances } = f;
  if (!settings || !pluginStore || !requestOutcomes || !figures || !receipts || !instances) throw new Error("a core family has no PostgreSQL engine");
  return { settings, pluginStore, requestOutcomes, figures, receipts, instances };
};

export function storeEngines(family: string): Engine[] {
  const unavailable = postgresUnavailable();
  if (unavailable) console.warn(`SKIPPED: the PostgreSQL side of the ${family} contract: ${unavailable}`);
  let server: TestPostgres | undefined;
  let databases = 0;
  beforeAll(async () => {
    if (!unavailable) server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return [
    {
      name: "SQLite",
      skip: false,
      async open() {
        const dir = mkdtempSync(join(tmpdir(), "tb-contract-"));
        const [a, b] = [openStore(dir), openStore(dir)];
        return { one: a, two: b, close: async () => void (await Promise.all([a.close(), b.close()])) };
      },
    },
    {
      name: "PostgreSQL",
      skip: unavailable !== undefined,
      async open() {
        const url = await server!.createDatabase(`${family.replace(/[^a-z]/g, "_")}_${++databases}`);
        const [a, b] = await Promise.all([openPgFacets(url, { max: 4 }), openPgFacets(url, { max: 4 })]);
        return { one: facetsOf(a), two: facetsOf(b), close: async () => void (await Promise.all([a.close(), b.close()])) };
      },
    },
  ];
}

/** Runs `test` with a fresh pair of instances on `engine`, closing them after. */
export const withInstances = (engine: Engine, test: (i: Instances) => Promise<void>) => async () => {
  const instances = await engine.open();
  try {
    await test(instances);
  } finally {
    await instances.close();
  }
};
