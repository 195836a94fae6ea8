/**
 * @module database — the service's one database: store/'s core tables joined with each feature's table
 * family (jobs and idempotency keys, the capital board, the directory, quotes). A new family adds its
 * migrations to `allMigrations` and its facet to `Store` here; store/ stays free of feature modules.
 */
import { a2aTaskMigrations } from "./a2a/task-store.ts";
import { capitalMigrations, createTicketStore, type TicketStore } from "./capital/ticket-store.ts";
import { createListingStore, directoryMigrations, type ListingStore } from "./directory/listing-store.ts";
import { idempotencyMigrations } from "./jobs/idempotency.ts";
import { createJobStore, jobMigrations, type JobStore } from "./jobs/job-store.ts";
import { createQuoteStore, quoteMigrations, type QuoteStore } from "./quotes/quote-store.ts";
import type { Migration } from "./store/db.ts";
import { type CoreStore, coreMigrations, openCoreStore } from "./store/store.ts";

export { databaseFileName } from "./store/store.ts";

export const allMigrations: readonly Migration[] = [
  ...coreMigrations,
  ...jobMigrations,
  ...idempotencyMigrations,
  ...capitalMigrations,
  ...directoryMigrations,
  ...quoteMigrations,
  ...a2aTaskMigrations,
];

export interface Store extends CoreStore {
  readonly jobs: JobStore;
  /** Capital board: tickets and seat commitments. */
  readonly tickets: TicketStore;
  /** Directory listings (contacts included: private). */
  readonly listings: ListingStore;
  readonly quotes: QuoteStore;
}

/** `dataDir` of ":memory:" gives a throwaway database (tests). */
export function openStore(dataDir: string): Store {
  const core = openCoreStore(dataDir, allMigrations);
  return {
    ...core,
    jobs: createJobStore(core.db),
    tickets: createTicketStore(core.db),
    listings: createListingStore(core.db),
    quotes: createQuoteStore(core.db),
  };
}

/** Opens the database for one operator command and closes it after the command's answer (or throw) is in. */
export async function withStore<T>(dataDir: string, use: (store: Store) => T | Promise<T>): Promise<T> {
  const store = openStore(dataDir);
  try {
    return await use(store);
  } finally {
    store.close();
  }
}
