/**
 * @module store/postgres — the one importer of the PostgreSQL driver (`postgres`, porsager's; it runs
 * on Bun and on Deno). Opens a pool on `--database-url`, normalises int8 (counts, sums, bigint
 * columns) from the driver's strings to numbers at this seam (beyond 2^53 it throws rather than round),
 * and applies forward-only migrations in one `schema_migrations` table, the same table and ids as the
 * SQLite side, under an advisory lock so instances starting together migrate once.
 *
 * Behind PgBouncer in transaction mode, open with `prepare: false`, or put `?prepare=false` on the
 * URL (prepared statements do not survive a pooled connection).
 */
import postgres from "postgres";
import type { Migration } from "./db.ts";

export type Sql = postgres.Sql<Record<string, never>>;
export type SqlTransaction = postgres.TransactionSql<Record<string, never>>;

export interface OpenPostgresOptions {
  readonly url: string;
  readonly migrations: readonly Migration[];
  /** Connections in the pool (default 10). */
  readonly max?: number;
  /** false behind PgBouncer in transaction mode; unset, the URL's `?prepare=false` decides (default true). */
  readonly prepare?: boolean;
}

const INT8_OID = 20;

/** int8 as a number; a value a number cannot hold exactly is an error, never a rounded figure. */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 ${text} does not fit a JavaScript number exactly`);
  return value;
}

/** Fixed key of the advisory lock migrations run under ("tollbooth" in ASCII, as an int8). */
const MIGRATION_LOCK = 0x746f6c6c626f6fn;

export async function openPostgres({ url, migrations, max = 10, prepare }: OpenPostgresOptions): Promise<Sql> {
  const sql = postgres(url, {
    max,
    ...(prepare === undefined ? {} : { prepare }),
    onnotice: () => {},
    types: { int8: { to: INT8_OID, from: [INT8_OID], serialize: (value: number | bigint) => String(value), parse: parseInt8 } },
  }) as unknown as Sql;
  try {
    await applyPostgresMigrations(sql, migrations);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return sql;
}

/** Applies, in id order, every migration not yet recorded, all in one transaction. Returns the ids applied. */
export async function applyPostgresMigrations(sql: Sql, migrations: readonly Migration[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const m of migrations) {
    if (ids.has(m.id)) throw new Error(`duplicate migration id ${m.id}`);
    ids.add(m.id);
  }
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${String(MIGRATION_LOCK)}::int8)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`;
    const done = new Set((await tx<{ id: string }[]>`SELECT id FROM schema_migrations`).map((r) => r.id));
    const applied: string[] = [];
    for (const m of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (done.has(m.id)) continue;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (id, applied_at) VALUES (${m.id}, ${new Date().toISOString()})`;
      applied.push(m.id);
    }
    return applied;
  }) as Promise<string[]>;
}
