/**
 * @module a2a/tables — the A2A tasks table on both engines (the SDK's TaskStore reads it through
 * a2a/task-store.ts) and the `store.a2aTasks` facet over it.
 */
import type { ModuleTables } from "../module/define.ts";
import { a2aTaskPgMigrations, createPgA2aTaskRows } from "./task-pg.ts";
import { type A2aTaskRows, a2aTaskMigrations, createSqliteA2aTaskRows } from "./task-store.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    /** A2A tasks (the SDK's TaskStore reads them through a2a/task-store.ts). */
    readonly a2aTasks: A2aTaskRows;
  }
}

export const tables = {
  family: "A2A tasks",
  sqlite: a2aTaskMigrations,
  postgres: a2aTaskPgMigrations,
  openSqlite: (db) => ({ a2aTasks: createSqliteA2aTaskRows(db) }),
  openPostgres: (sql) => ({ a2aTasks: createPgA2aTaskRows(sql) }),
} satisfies ModuleTables;
