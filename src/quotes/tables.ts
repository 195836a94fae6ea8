/** @module quotes/tables — the quotes table on both engines and the `store.quotes` facet. */
import type { ModuleTables } from "../module/define.ts";
import { createPgQuoteStore, quotePgMigrations } from "./quote-pg.ts";
import { createQuoteStore, quoteMigrations, type QuoteStore } from "./quote-store.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    readonly quotes: QuoteStore;
  }
}

export const tables = {
  family: "quotes",
  sqlite: quoteMigrations,
  postgres: quotePgMigrations,
  openSqlite: (db) => ({ quotes: createQuoteStore(db) }),
  openPostgres: (sql) => ({ quotes: createPgQuoteStore(sql) }),
} satisfies ModuleTables;
