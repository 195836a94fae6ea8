/**
 * @module store/store — opens the one database file with the core tables every part of the server uses
 * (settings, plugin key-value storage, request outcomes, receipts), applying the migrations it is given.
 * Feature table families (jobs, quotes, the capital board, the directory) are not known here: they join
 * in `src/database.ts`, so the store depends on no feature module.
 */
import { join } from "node:path";
import { type Database, type Migration, openDatabase } from "./db.ts";
import { createPluginStore, pluginKvMigrations, type PluginStore } from "./plugin-kv.ts";
import { receiptMigrations } from "./receipts.ts";
import { createRequestOutcomeStore, requestOutcomeMigrations, type RequestOutcomeStore } from "./request-outcomes.ts";
import { createSettingsStore, type SettingsStore, settingsMigrations } from "./settings.ts";

/** The core tables' migrations; a feature family's come after them (database.ts). */
export const coreMigrations: readonly Migration[] = [...settingsMigrations, ...pluginKvMigrations, ...requestOutcomeMigrations, ...receiptMigrations];

export const databaseFileName = "tollbooth.db";

export interface CoreStore {
  readonly db: Database;
  readonly path: string;
  readonly settings: SettingsStore;
  readonly requestOutcomes: RequestOutcomeStore;
  pluginStore(pluginId: string): PluginStore;
  /** Runs `stop` before the database closes (background workers that write to it). */
  onClose(stop: () => void): void;
  close(): void;
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
    db,
    path,
    settings: createSettingsStore(db),
    requestOutcomes,
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
    close() {
      for (const stop of closers.splice(0)) stop();
      requestOutcomes.flush();
      db.close();
    },
  };
}
