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
import { startPostgres, type TestPostgres } from "./postgres.ts";
import { skipWithout } from "./requirements.ts";

export interface Instances<T> {
  readonly one: T;
  readonly two: T;
  close(): Promise<void>;
}

export interface Many<T> {
  readonly instances: T[];
  close(): Promise<void>;
}

export interface StoreEngine<T> {
  readonly name: "SQLite" | "PostgreSQL";
  readonly skip: boolean;
  open(): Promise<Instances<T>>;
  /** `count` instances on one fresh database, opened one after another (for cases of more than two). */
  openMany(count: number): Promise<Many<T>>;
  /** PostgreSQL only: a fresh, empty database on this file's server, for cases below the store (its URL). */
  readonly freshDatabase?: () => Promise<string>;
}

export interface EngineFactories<T> {
  readonly sqliteMigrations: readonly Migration[];
  readonly sqlite: (db: Database) => T;
  readonly pgMigrations: readonly Migration[];
  readonly pg: (sql: Sql) => T;
}

/** One handle an instance holds, and how it ends. */
export interface Opened<T> {
  readonly value: T;
  close(): void | Promise<void>;
}

/** How an instance opens a shared database: a SQLite folder, or a PostgreSQL URL. */
export interface EngineOpeners<T> {
  readonly sqlite: (dir: string) => Opened<T>;
  readonly pg: (url: string) => Promise<Opened<T>>;
}

/** One family's store on a raw handle (its migrations applied), for contracts of a single table family. */
export function familyOpeners<T>(factories: EngineFactories<T>): EngineOpeners<T> {
  return {
    sqlite(dir) {
      const db = openDatabase({ path: join(dir, "store.db"), migrations: factories.sqliteMigrations });
      return { value: factories.sqlite(db), close: () => db.close() };
    },
    async pg(url) {
      const sql = await openPostgres({ url, migrations: factories.pgMigrations, max: 4 });
      // A second for queries still in flight (a case may stop a worker mid-run), then the pool is closed.
      return { value: factories.pg(sql), close: () => sql.end({ timeout: 1 }) };
    },
  };
}

export interface FilePostgres {
  /** PostgreSQL cannot be started here: its cases are skipped (the reason printed once, test/support/requirements.ts). */
  readonly skip: boolean;
  /** A fresh, empty database on this file's server; its URL. */
  freshDatabase(): Promise<string>;
}

/**
 * A real PostgreSQL for this test file: started in beforeAll, stopped in afterAll (call once per file,
 * at top level); `what` names the cases skipped where it cannot be started.
 */
export function filePostgres(prefix: string, what = `the PostgreSQL side of the ${prefix} store contract`): FilePostgres {
  const skip = skipWithout("postgres", what);
  let server: TestPostgres | undefined;
  let databases = 0;
  beforeAll(async () => {
    if (!skip) server = await startPostgres();
  }, 120_000);
  // Stopping the server waits for its shutdown (over 5 s, bun's default, on a loaded machine).
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  return {
    skip,
    freshDatabase: () => server!.createDatabase(`${prefix.replace(/[^a-z]/gi, "_").toLowerCase()}_${++databases}`),
  };
}

/** Starts PostgreSQL for this file (beforeAll/afterAll) and returns both engines. Call once per file, at top level. */
export function storeEngines<T>(prefix: string, factories: EngineFactories<T>): StoreEngine<T>[] {
  return engineInstances(prefix, familyOpeners(factories));
}

/** Both engines, each opened twice on one fresh database as two instances would open it. */
export function engineInstances<T>(prefix: string, openers: EngineOpeners<T>): StoreEngine<T>[] {
  const { skip, freshDatabase } = filePostgres(prefix);
  const pair = (a: Opened<T>, b: Opened<T>): Instances<T> => ({
    one: a.value,
    two: b.value,
    close: async () => void (await Promise.all([a.close(), b.close()])),
  });
  const many = async (count: number, open: () => Opened<T> | Promise<Opened<T>>): Promise<Many<T>> => {
    const opened: Opened<T>[] = [];
    for (let i = 0; i < count; i++) opened.push(await open());
    return { instances: opened.map((o) => o.value), close: async () => void (await Promise.all(opened.map((o) => o.close()))) };
  };
  const sqliteFolder = () => mkdtempSync(join(tmpdir(), `tb-${prefix.replace(/[^a-z]/gi, "-")}-`));
  return [
    {
      name: "SQLite",
      skip: false,
      async open() {
        const dir = sqliteFolder();
        return pair(openers.sqlite(dir), openers.sqlite(dir));
      },
      async openMany(count) {
        const dir = sqliteFolder();
        return many(count, () => openers.sqlite(dir));
      },
    },
    {
      name: "PostgreSQL",
      skip,
      async open() {
        const url = await freshDatabase();
        const [a, b] = await Promise.all([openers.pg(url), openers.pg(url)]);
        return pair(a, b);
      },
      async openMany(count) {
        const url = await freshDatabase();
        return many(count, () => openers.pg(url));
      },
      freshDatabase,
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
