/**
 * @module store/store — opens the one database file and builds every table family on it.
 * New families add their migrations to `allMigrations` and a facet here.
 */
import { join } from "node:path";
import { capitalMigrations, createTicketStore, type TicketStore } from "../capital/ticket-store.ts";
import { createListingStore, directoryMigrations, type ListingStore } from "../directory/listing-store.ts";
import { idempotencyMigrations } from "../jobs/idempotency.ts";
import { createJobStore, jobMigrations, type JobStore } from "../jobs/job-store.ts";
import { createQuoteStore, quoteMigrations, type QuoteStore } from "../quotes/quote-store.ts";
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
  ...jobMigrations,
  ...idempotencyMigrations,
  ...capitalMigrations,
  ...directoryMigrations,
  ...quoteMigrations,
];

export const databaseFileName = "tollbooth.db";

export interface Store {
  readonly db: Database;
  readonly path: string;
  readonly settings: SettingsStore;
  readonly requestOutcomes: RequestOutcomeStore;
  readonly jobs: JobStore;
  /** Capital board: tickets and seat commitments. */
  readonly tickets: TicketStore;
  /** Directory listings (contacts included: private). */
  readonly listings: ListingStore;
  readonly quotes: QuoteStore;
  pluginStore(pluginId: string): PluginStore;
  /** Runs `stop` before the database closes (background workers that write to it). */
  onClose(stop: () => void): void;
  close(): void;
}

/** `dataDir` of ":memory:" gives a throwaway database (tests). */
export function openStore(dataDir: string): Store {
  const path = dataDir === ":memory:" ? ":memory:" : join(dataDir, databaseFileName);
  const db = openDatabase({ path, migrations: allMigrations });
  const pluginStores = new Map<string, PluginStore>();
  const closers: (() => void)[] = [];
  const requestOutcomes = createRequestOutcomeStore(db);
  return {
    db,
    path,
    settings: createSettingsStore(db),
    requestOutcomes,
    jobs: createJobStore(db),
    tickets: createTicketStore(db),
    listings: createListingStore(db),
    quotes: createQuoteStore(db),
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
