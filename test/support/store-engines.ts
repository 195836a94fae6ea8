/**
 * The two engines a store contract runs on (issue 28): SQLite (a fresh file, two handles on it) and
 * a real PostgreSQL started once per test file (test/support/postgres.ts; a fresh database per case,
 * two pools on it). Two handles stand for two instances sharing one database. The PostgreSQL side is
 * skipped only where PostgreSQL cannot be started, with the reason printed.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, type Migration, openDatabase } from "../../src/store/db.ts";
import { openPostgres, type Sql } from "../../src/store/postgres.ts";
import { postgresUnavailable, startPostgres, type TestPostgres } from "./postgres.ts";

export interface Instances<T> {
  readonly one: T;
  readonly two: T;
  close(): Promise<void>;
}

export interface StoreEngine<T> {
  readonly name: "SQLite" | "PostgreSQL";
  readonly skip: boolean;
  open(): Promise<Instances<T>>;
}

export interface EngineFactories<T> {
  readonly sqliteMigrations: readonly Migration[];
  readonly sqlite: (db: Database) => T;
  readonly pgMigrations: readonly Migration[];
  readonly pg: (sql: Sql) => T;
}

/** Starts PostgreSQL for this file (beforeAll/afterAll) and returns both engines. Call once per file, at top level. */
export function storeEngines<T>(prefix: string, factories: EngineFactories<T>): StoreEngine<T>[] {
  const unavailable = postgresUnavailable();
  if (unavailable) console.warn(`SKIPPED: the PostgreSQL side of the ${prefix} store contract: ${unavailable}`);
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
        const path = join(mkdtempSync(join(tmpdir(), `tb-${prefix}-`)), "store.db");
        const a = openDatabase({ path, migrations: factories.sqliteMigrations });
        const b = openDatabase({ path, migrations: factories.sqliteMigrations });
        return {
          one: factories.sqlite(a),
          two: factories.sqlite(b),
          close: async () => {
            a.close();
            b.close();
          },
        };
      },
    },
    {
      name: "PostgreSQL",
      skip: unavailable !== undefined,
      async open() {
        const url = await server!.createDatabase(`${prefix}_${++databases}`);
        const [a, b] = await Promise.all([openPostgres({ url, migrations: factories.pgMigrations, max: 4 }), openPostgres({ url, migrations: factories.pgMigrations, max: 4 })]);
        return {
          one: factories.pg(a),
          two: factories.pg(b),
          close: async () => {
            await Promise.all([a.end(), b.end()]);
          },
        };
      },
    },
  ];
}

/** Runs `test` with a fresh pair of instances, closing them after. */
export const withInstances =
  <T>(engine: StoreEngine<T>, test: (i: Instances<T>) => Promise<void>) =>
  async () => {
    const instances = await engine.open();
    try {
      await test(instances);
    } finally {
      await instances.close();
    }
  };
