/**
 * @module database — the service's one database: store/'s core tables (receipts, settings, plugin
 * storage, request outcomes, instances, the operator's figures) joined with every feature module's
 * tables (src/module-tables.generated.ts: a module brings its own, see module/define.ts); it names no
 * feature, and store/ stays free of feature modules.
 *
 * Two engines (issue 28): one SQLite file (`openStore`, the default) or a PostgreSQL database that
 * several instances share (`openPgStore`). Every family lists its engines in `families` below; a
 * PostgreSQL store opens only when each has one, and otherwise says which do not yet.
 */
import type { ModuleStores, PgFamilyContext } from "./module/define.ts";
import { moduleTables } from "./module-tables.generated.ts";
import type { Migration } from "./store/db.ts";
import type { Sql } from "./store/postgres.ts";
import { createOperatorFigures, type OperatorFigures } from "./store/operator-figures.ts";
import { createPgInstanceRegistry, instancePgMigrations } from "./store/instances-pg.ts";
import { createPgOperatorFigures } from "./store/operator-figures-pg.ts";
import { createPgPluginStore, pluginKvPgMigrations } from "./store/plugin-kv-pg.ts";
import { createPgReceiptStore, receiptPgMigrations } from "./store/receipts-pg.ts";
import { createPgRequestOutcomeStore, requestOutcomePgMigrations } from "./store/request-outcomes-pg.ts";
import { createPgSettingsStore, settingsPgMigrations } from "./store/settings-pg.ts";
import { type CoreStore, coreMigrations, openCoreStore } from "./store/store.ts";

export { databaseFileName } from "./store/store.ts";

export const allMigrations: readonly Migration[] = [
  ...coreMigrations,
  ...moduleTables.flatMap((t) => t.sqlite),
];

/** The core tables, the families below and every feature module's (`ModuleStores`, merged in by each module's tables.ts). */
export interface Store extends CoreStore, ModuleStores {
  /** The operator's read-only figures and receipt list (dashboard, /metrics, `tollbooth receipts`). */
  readonly figures: OperatorFigures;
}

/** The facets a family contributes to a store (everything but the handle and its life). */
export type StoreFacets = Omit<Store, "engine" | "db" | "path" | "onClose" | "close">;

export type { PgFamilyContext } from "./module/define.ts";

/**
 * Each table family and its PostgreSQL engine: its migrations (the same ids as on SQLite) and the
 * facets it builds on a pool. Registering a family on PostgreSQL is filling its `pg` entry.
 */
export interface Family {
  readonly name: string;
  readonly pg?: {
    readonly migrations: readonly Migration[];
    open(sql: Sql, context: PgFamilyContext): Partial<StoreFacets> | Promise<Partial<StoreFacets>>;
  };
}

export const families: readonly Family[] = [
  { name: "payment receipts", pg: { migrations: receiptPgMigrations, open: (sql) => ({ receipts: createPgReceiptStore(sql) }) } },
  { name: "settings", pg: { migrations: settingsPgMigrations, open: async (sql) => ({ settings: await createPgSettingsStore(sql) }) } },
  { name: "plugin key-value storage", pg: { migrations: pluginKvPgMigrations, open: (sql) => ({ pluginStore: (pluginId) => createPgPluginStore(sql, pluginId) }) } },
  {
    name: "request outcomes",
    pg: {
      migrations: requestOutcomePgMigrations,
      open: (sql, { onClose, warn }) => ({ requestOutcomes: outcomesFlushedOnClose(createPgRequestOutcomeStore(sql, (error) => warn("request outcomes not written", error)), onClose) }),
    },
  },
  { name: "instance heartbeats", pg: { migrations: instancePgMigrations, open: (sql) => ({ instances: createPgInstanceRegistry(sql) }) } },
  // Reads the receipts, outcomes and jobs tables; no table of its own.
  { name: "operator figures", pg: { migrations: [], open: (sql) => ({ figures: createPgOperatorFigures(sql) }) } },
  ...moduleTables.map((t): Family => ({ name: t.family, pg: { migrations: t.postgres, open: t.openPostgres } })),
];

function outcomesFlushedOnClose<T extends { flush(): Promise<void> }>(outcomes: T, onClose: PgFamilyContext["onClose"]): T {
  onClose(() => outcomes.flush());
  return outcomes;
}

/** The PostgreSQL migrations of every family that has an engine there. */
export const allPgMigrations: readonly Migration[] = families.flatMap((f) => f.pg?.migrations ?? []);

/** Families that cannot be kept on PostgreSQL yet (a store there would lose their state). */
export function familiesNotOnPostgres(list: readonly Family[] = families): string[] {
  return list.filter((f) => !f.pg).map((f) => f.name);
}

/** A database URL was given, but some table families have no PostgreSQL engine yet. */
export class PostgresNotReadyError extends Error {
  constructor(readonly missing: readonly string[]) {
    super(
      `--database-url: these table families are not on PostgreSQL yet: ${missing.join(", ")}. ` +
        "Serve from the SQLite data folder (--data, no database URL) until they are.",
    );
    this.name = "PostgresNotReadyError";
  }
}

/** `dataDir` of ":memory:" gives a throwaway database (tests). */
export function openStore(dataDir: string): Store {
  const core = openCoreStore(dataDir, allMigrations);
  return {
    ...core,
    figures: createOperatorFigures(core.db),
    ...(Object.assign({}, ...moduleTables.map((t) => t.openSqlite(core.db, dataDir))) as ModuleStores),
  };
}

export interface OpenPgStoreOptions {
  /** Connections in this instance's pool (default 10). */
  readonly max?: number;
  /** false behind PgBouncer in transaction mode (no prepared statements); unset, the URL's `?prepare=false` decides. */
  readonly prepare?: boolean;
  /** Where failed background writes are reported (default: stderr). */
  readonly warn?: (message: string, error: Error) => void;
}

/** The facets of the families registered on PostgreSQL, over one pool; `close` ends it. */
export interface PgFacets extends Partial<StoreFacets> {
  readonly sql: Sql;
  onClose(stop: () => void | Promise<void>): void;
  close(): Promise<void>;
}

/**
 * Opens (and migrates) the families that have a PostgreSQL engine, whatever the others: the
 * contract tests and the benchmark use it; serving uses `openPgStore`.
 */
export async function openPgFacets(url: string, options: OpenPgStoreOptions = {}): Promise<PgFacets> {
  // The driver loads only when a database URL is used: SQLite serving and the operator commands never pay for it.
  const { openPostgres } = await import("./store/postgres.ts");
  const { warn = (message: string, error: Error) => console.error(`${message}: ${error.message}`), ...pool } = options;
  const sql = await openPostgres({ url, migrations: allPgMigrations, ...pool });
  const closers: (() => void | Promise<void>)[] = [];
  const context: PgFamilyContext = { onClose: (stop) => closers.push(stop), warn };
  let facets: Partial<StoreFacets>;
  try {
    facets = Object.assign({}, ...(await Promise.all(families.map((f) => f.pg?.open(sql, context) ?? {})))) as Partial<StoreFacets>;
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return {
    ...facets,
    sql,
    onClose: context.onClose,
    async close() {
      for (const stop of closers.splice(0).reverse()) await stop();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * The whole store on PostgreSQL. Refuses (PostgresNotReadyError, naming them) while any table family
 * has no PostgreSQL engine: serving would keep that family's state where other instances cannot see it.
 */
export async function openPgStore(url: string, options: OpenPgStoreOptions = {}): Promise<Store> {
  const missing = familiesNotOnPostgres();
  if (missing.length > 0) throw new PostgresNotReadyError(missing);
  const { sql: _sql, ...facets } = await openPgFacets(url, options);
  return {
    ...(facets as StoreFacets & Pick<PgFacets, "onClose" | "close">),
    engine: "postgres",
    get db(): never {
      throw new Error("this store runs on PostgreSQL: it has no SQLite handle");
    },
    path: redactedUrl(url),
  };
}

/** What the operator commands on the core tables use (pause, resume, receipts, doctor's heartbeat check). */
export type OperatorStore = Pick<Store, "settings" | "figures" | "receipts" | "instances" | "path" | "close">;

/**
 * The database the server uses, for one operator command on the core tables: the PostgreSQL of
 * `--database-url` when set (so `tollbooth pause` reaches every instance), else the SQLite file in `--data`.
 */
export async function openOperatorStore(config: { readonly data: string; readonly databaseUrl?: string | undefined }): Promise<OperatorStore> {
  if (!config.databaseUrl) return openStore(config.data);
  const pg = await openPgFacets(config.databaseUrl, { max: 2 });
  const { settings, figures, receipts, instances } = pg;
  if (!settings || !figures || !receipts || !instances) {
    await pg.close();
    throw new PostgresNotReadyError(["settings, operator figures, payment receipts or instance heartbeats"]);
  }
  return { settings, figures, receipts, instances, path: redactedUrl(config.databaseUrl), close: () => pg.close() };
}

/** The URL with its password replaced, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable database URL)";
  }
}

/** Opens the database for one operator command and closes it after the command's answer (or throw) is in. */
export async function withStore<T>(dataDir: string, use: (store: Store) => T | Promise<T>): Promise<T> {
  const store = openStore(dataDir);
  try {
    return await use(store);
  } finally {
    void store.close();
  }
}
