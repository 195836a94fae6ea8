/**
 * @module store/db — opens the database (WAL), applies forward-only migrations, and hands out the
 * handle to the table-family modules. The driver (node:sqlite, on Bun and on Deno) is imported by
 * sqlite.ts only.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Database } from "./sqlite.ts";

export { Database, Statement } from "./sqlite.ts";

/** One forward-only migration. `id` sorts lexically and is never reused or edited once shipped. */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}

export interface OpenDatabaseOptions {
  /** File path, or ":memory:". */
  readonly path: string;
  readonly migrations: readonly Migration[];
}

export function openDatabase({ path, migrations }: OpenDatabaseOptions): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  applyMigrations(db, migrations);
  return db;
}

/** Applies, in id order, every migration not yet recorded; each in its own transaction. Returns the ids applied. */
export function applyMigrations(db: Database, migrations: readonly Migration[]): string[] {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)",
  );
  const ids = new Set<string>();
  for (const m of migrations) {
    if (ids.has(m.id)) throw new Error(`duplicate migration id ${m.id}`);
    ids.add(m.id);
  }
  const done = new Set(
    db.query<{ id: string }, []>("SELECT id FROM schema_migrations").all().map((r) => r.id),
  );
  const record = db.prepare("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)");
  const applied: string[] = [];
  for (const m of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
    if (done.has(m.id)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.id, new Date().toISOString());
    })();
    applied.push(m.id);
  }
  return applied;
}
