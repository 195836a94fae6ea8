/**
 * @module evidence/tables — the evidence signing keys: a table on PostgreSQL, which every instance
 * signs from (key-set-pg.ts), and on one SQLite instance the key file in its data folder
 * (key-set.ts), kept outside the database so an operator can back it up and move it alone.
 */
import type { ModuleTables } from "../module/define.ts";
import { fileEvidenceKeySet } from "./key-set.ts";
import { createPgEvidenceKeySet, evidenceKeyPgMigrations } from "./key-set-pg.ts";

export const tables = {
  family: "evidence signing keys",
  sqlite: [],
  postgres: evidenceKeyPgMigrations,
  outsideSqlite: "the keys are a file in the data folder",
  openSqlite: (_db, dataDir) => ({ evidenceKeys: fileEvidenceKeySet(dataDir) }),
  openPostgres: (sql) => ({ evidenceKeys: createPgEvidenceKeySet(sql) }),
} satisfies ModuleTables;
