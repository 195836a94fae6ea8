/**
 * @module capital/tables — the capital board's tables on both engines (tickets and seat commitments,
 * with the refund columns the shared ledger reads) and the `store.tickets` facet over them.
 */
import type { ModuleTables } from "../module/define.ts";
import { createPgRefundLedger } from "../refunds/ledger-pg.ts";
import { capitalPgMigrations, createPgTicketBoard } from "./ticket-pg.ts";
import { capitalMigrations, capitalRefundTable, createTicketStore, type TicketStore } from "./ticket-store.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    /** Capital board: tickets and seat commitments. */
    readonly tickets: TicketStore;
  }
}

export const tables = {
  family: "capital tickets",
  sqlite: capitalMigrations,
  postgres: capitalPgMigrations,
  openSqlite: (db) => ({ tickets: createTicketStore(db) }),
  openPostgres: (sql) => ({ tickets: { ...createPgTicketBoard(sql), ...createPgRefundLedger(sql, capitalRefundTable) } }),
} satisfies ModuleTables;
