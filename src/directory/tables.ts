/** @module directory/tables — the directory's listings table on both engines and the `store.listings` facet. */
import type { ModuleTables } from "../module/define.ts";
import { createPgListingStore, directoryPgMigrations } from "./listing-pg.ts";
import { createListingStore, directoryMigrations, type ListingStore } from "./listing-store.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    /** Directory listings (contacts included: private). */
    readonly listings: ListingStore;
  }
}

export const tables = {
  family: "directory listings",
  sqlite: directoryMigrations,
  postgres: directoryPgMigrations,
  openSqlite: (db) => ({ listings: createListingStore(db) }),
  openPostgres: (sql) => ({ listings: createPgListingStore(sql) }),
} satisfies ModuleTables;
