/**
 * @module database — the service's one database: store/'s core tables joined with each feature's table
 * family (jobs and idempotency keys, the capital board, the directory, quotes). A new family adds its
 * migrations to `allMigrations` and its facet to `Store` here; store/ stays free of feature modules.
 */
import { a2aTaskPgMigrations, createPgA2aTaskRows } from "./a2a/task-pg.ts";
import { type A2aTaskRows, a2aTaskMigrations, createSqliteA2aTaskRows } from "./a2a/task-store.ts";
import { capitalPgMigrations, createPgTicketBoard } from "./capital/ticket-pg.ts";
import { capitalMigrations, createTicketStore, type TicketStore } from "./capital/ticket-store.ts";
import { createPgListingStore, directoryPgMigrations } from "./directory/listing-pg.ts";
import { createListingStore, directoryMigrations, type ListingStore } from "./directory/listing-store.ts";
import { idempotencyMigrations } from "./jobs/idempotency.ts";
import { idempotencyPgMigrations } from "./jobs/idempotency-pg.ts";
import { createJobStore, jobMigrations, type JobStore } from "./jobs/job-store.ts";
import { createPgQuoteStore, quotePgMigrations } from "./quotes/quote-pg.ts";
import { createQuoteStore, quoteMigrations, type QuoteStore } from "./quotes/quote-store.ts";
import type { RefundLedger } from "./refunds/ledger.ts";
import type { Migration } from "./store/db.ts";
import type { Sql } from "./store/postgres.ts";
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
  /** A2A tasks (the SDK's TaskStore reads them through a2a/task-store.ts). */
  readonly a2aTasks: A2aTaskRows;
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
    a2aTasks: createSqliteA2aTaskRows(core.db),
  };
}

/** The feature families' PostgreSQL migrations (issue 28): the same ids as their SQLite ones. */
export const featurePgMigrations: readonly Migration[] = [...quotePgMigrations, ...capitalPgMigrations, ...directoryPgMigrations, ...a2aTaskPgMigrations];

/** Every PostgreSQL migration known so far: the schema `tollbooth migrate-store` copies a data folder into. */
export const allPgMigrations: readonly Migration[] = [...idempotencyPgMigrations, ...featurePgMigrations];

/** The feature facets on PostgreSQL; the capital board's refund ledger comes from the ledger's own engine. */
export function pgFeatureFacets(sql: Sql, capitalRefunds: RefundLedger): Pick<Store, "tickets" | "listings" | "quotes" | "a2aTasks"> {
  return {
    tickets: { ...createPgTicketBoard(sql), ...capitalRefunds },
    listings: createPgListingStore(sql),
    quotes: createPgQuoteStore(sql),
    a2aTasks: createPgA2aTaskRows(sql),
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
