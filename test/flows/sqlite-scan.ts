/**
 * Finds strings in a SQLite database two ways: every row of every table (logical), and the raw
 * bytes of the database file and its WAL/SHM (so freed pages and uncheckpointed writes count too).
 */
import { existsSync, readFileSync } from "node:fs";
import type { Database } from "../../src/store/db.ts";

export interface SqliteScan {
  /** Needles found in some row, by table. */
  readonly inRows: Record<string, string[]>;
  /** Needles found in the raw bytes of the file, -wal or -shm. */
  readonly inFiles: string[];
}

export function scanSqlite(db: Database, path: string, needles: readonly string[]): SqliteScan {
  const inRows: Record<string, string[]> = {};
  const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  for (const { name } of tables) {
    const rows = JSON.stringify(db.query(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all()).toLowerCase();
    const found = needles.filter((needle) => rows.includes(needle.toLowerCase()));
    if (found.length > 0) inRows[name] = found;
  }
  const inFiles = new Set<string>();
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file).toString("latin1").toLowerCase();
    for (const needle of needles) if (bytes.includes(needle.toLowerCase())) inFiles.add(needle);
  }
  return { inRows, inFiles: [...inFiles] };
}
