/**
 * @module store/store — opens the one database file and builds every table family on it.
 * New families add their migrations to `allMigrations` and a facet here.
 */
import { join } from "node:path";
import { type Database, type Migration, openDatabase } from "./db.ts";
import { createPluginStore, pluginKvMigrations, type PluginStore } from "./plugin-kv.ts";
import { receiptMigrations } from "./receipts.ts";
import { createRequestOutcomeStore, requestOutcomeMigrations, type RequestOutcomeStore } from "./request-outcomes.ts";
import { createSettingsStore, type SettingsStore, settingsMigrations } from "./settings.ts";

export const allMigrations: readonly Migration[] = [
  ...settingsMigrations,
  ...pluginKvMigrations,
  ...requestOutcomeMigrations,
  ...receiptMigrations,
];

export const databaseFileName = "tollbooth.db";

export interface Store {
  readonly db: Database;
  readonly path: string;
  readonly settings: SettingsStore;
  readonly requestOutcomes: RequestOutcomeStore;
  pluginStore(pluginId: string): PluginStore;
  close(): void;
}

/** `dataDir` of ":memory:" gives a throwaway database (tests). */
export function openStore(dataDir: string): Store {
  const path = dataDir === ":memory:" ? ":memory:" : join(dataDir, databaseFileName);
  const db = openDatabase({ path, migrations: allMigrations });
  const pluginStores = new Map<string, PluginStore>();
  return {
    db,
    path,
    settings: createSettingsStore(db),
    requestOutcomes: createRequestOutcomeStore(db),
    pluginStore(pluginId) {
      let store = pluginStores.get(pluginId);
      if (!store) {
        store = createPluginStore(db, pluginId);
        pluginStores.set(pluginId, store);
      }
      return store;
    },
    close() {
      db.close();
    },
  };
}
