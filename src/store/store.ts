/**
 * @module store/store — opens the one database file with the core tables every part of the server uses
 * (settings, plugin key-value storage, request outcomes, receipts), applying the migrations it is given.
 * Feature table families (jobs, quotes, the capital board, the directory) are not known here: they join
 * in `src/database.ts`, so the store depends on no feature module.
 */
import { join } from "node:path";
import { type Database, type Migration, openDatabase } from "./db.ts";
import { createInstanceRegistry, instanceMigrations, type InstanceRegistry } from "./instances.ts";
import { createPluginStore, pluginKvMigrations, type PluginStore } from "./plugin-kv.ts";
import { createReceiptStore, receiptMigrations, type ReceiptStore } from "./receipts.ts";
import { createRequestOutcomeStore, requestOutcomeMigrations, type RequestOutcomeStore } from "./request-outcomes.ts";
import { createSettingsStore, type SettingsStore, settingsMigrations } from "./settings.ts";

/** The core tables' migrations; a feature family's come after them (database.ts). */
export const coreMigrations: readonly Migration[] = [...settingsMigrations, ...pluginKvMigrations, ...requestOutcomeMigrations, ...receiptMigrations, ...instanceMigrations];

export const databaseFileName = "tollbooth.db";

export interface CoreStore {
  /** Which engine holds the tables: one SQLite file, or a PostgreSQL database several instances share. */
  readonly engine: "sqlite" | "postgres";
  /**
   * The SQLite handle, for families not yet behind an engine-neutral interface. A store on
   * PostgreSQL has none (asking throws): it opens only once every family has a PostgreSQL engine.
   */
  readonly db: Database;
  /** The database file, or the PostgreSQL URL without its password. */
  readonly path: string;
  readonly settings: SettingsStore;
  readonly requestOutcomes: RequestOutcomeStore;
  /** Payment receipts: the replay lock every paid call takes before its work. */
  readonly receipts: ReceiptStore;
  /** Heartbeats of the serving instances (doctor: no two live ones may share a settlement signer). */
  readonly instances: InstanceRegistry;
  pluginStore(pluginId: string): PluginStore;
  /** Runs `stop` before the database closes (background workers that write to it). */
  onClose(stop: () => void): void;
  /** Closes at once on SQLite; on PostgreSQL the promise ends when the pool has. */
  close(): Promise<void>;
}

/**
 * Opens (and migrates) the database of `dataDir`; `dataDir` of ":memory:" gives a throwaway database
 * (tests). `migrations` must begin with `coreMigrations`.
 */
export function openCoreStore(dataDir: string, migrations: readonly Migration[] = coreMigrations): CoreStore {
  const path = dataDir === ":memory:" ? ":memory:" : join(dataDir, databaseFileName);
  const db = openDatabase({ path, migrations });
  const pluginStores = new Map<string, PluginStore>();
  const closers: (() => void)[] = [];
  const requestOutcomes = createRequestOutcomeStore(db);
  return {
    engine: "sqlite",
    db,
    path,
    settings: createSettingsStore(db),
    requestOutcomes,
    receipts: createReceiptStore(db),
    instances: createInstanceRegistry(db),
    pluginStore(pluginId) {
      let store = pluginStores.get(pluginId);
      if (!store) {
        store = createPluginStore(db, pluginId);
        pluginStores.set(pluginId, store);
      }
      return store;
    },
    onClose(stop) {
      closers.push(stop);
    },
    async close() {
      for (const stop of closers.splice(0)) stop();
      // SQLite writes the queued rows before flush returns: the file closes at once, before this promise.
      void requestOutcomes.flush();
      db.close();
    },
  };
}
