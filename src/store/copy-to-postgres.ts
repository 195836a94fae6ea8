/**
 * @module store/copy-to-postgres — copies every table of a SQLite database into a PostgreSQL
 * database whose schema is already migrated (`tollbooth migrate-store`). Generic: the tables and
 * columns come from the two schemas, not from the table families, so a family ported later is
 * copied with no change here.
 *
 * Refused before anything is written: a SQLite table holding rows that PostgreSQL has no table
 * for, a SQLite column PostgreSQL lacks, or (unless `append`) a target table that already holds
 * rows. The copy reads one SQLite snapshot and writes everything in one PostgreSQL transaction, in
 * batches, parents before children (foreign keys); identity sequences are moved past the copied
 * values. The counts are checked again after the commit.
 */
import type { Database } from "./db.ts";
import type { Sql, SqlTransaction } from "./postgres.ts";

export interface CopyOptions {
  /** Copy into tables that already hold rows (the new rows must not collide with them). */
  readonly append?: boolean;
  /** Rows per INSERT (default 500). */
  readonly batchRows?: number;
  /** Told each table as it is copied. */
  readonly progress?: (table: string, rows: number) => void;
}

export interface TableCopy {
  readonly table: string;
  /** Rows read from SQLite and written to PostgreSQL. */
  readonly rows: number;
  /** Rows in the PostgreSQL table after the commit (rows + those there before, with append). */
  readonly targetRows: number;
}

export interface CopyReport {
  readonly copied: readonly TableCopy[];
  /** SQLite tables left out: empty, and PostgreSQL has no table for them yet. */
  readonly skippedEmpty: readonly string[];
}

export class CopyRefused extends Error {}

/** Tables of SQLite's own and the migrations table (each side keeps its own). */
const internal = (name: string) => name.startsWith("sqlite_") || name === "schema_migrations";

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface SqliteTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly rowid: boolean;
  readonly parents: readonly string[];
  readonly rows: number;
}

function sqliteTables(db: Database): SqliteTable[] {
  const tables = db.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
  return tables
    .filter((t) => !internal(t.name))
    .map((t) => ({
      name: t.name,
      columns: db.query<{ name: string }, []>(`SELECT name FROM pragma_table_info(${`'${t.name.replace(/'/g, "''")}'`}) ORDER BY cid`).all().map((c) => c.name),
      rowid: !/WITHOUT\s+ROWID/i.test(t.sql),
      parents: db.query<{ table: string }, []>(`SELECT "table" FROM pragma_foreign_key_list(${`'${t.name.replace(/'/g, "''")}'`})`).all().map((f) => f.table),
      rows: db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${quoteIdent(t.name)}`).get()!.n,
    }));
}

/** Parents before children; a cycle (none in our schema) keeps the remaining order. */
function parentsFirst(tables: SqliteTable[]): SqliteTable[] {
  const ordered: SqliteTable[] = [];
  const placed = new Set<string>();
  let pending = [...tables];
  while (pending.length > 0) {
    const ready = pending.filter((t) => t.parents.every((p) => p === t.name || placed.has(p) || !pending.some((q) => q.name === p)));
    const next = ready.length > 0 ? ready : pending.slice(0, 1);
    for (const t of next) {
      ordered.push(t);
      placed.add(t.name);
    }
    pending = pending.filter((t) => !placed.has(t.name));
  }
  return ordered;
}

/** A SQLite value as the JSON json_populate_recordset reads into a column of `type`. */
function valueFor(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString("hex")}`;
  if (typeof value === "bigint") return Number(value);
  if ((type === "json" || type === "jsonb") && typeof value === "string") return JSON.parse(value);
  if (type === "boolean" && typeof value === "number") return value !== 0;
  if (type.startsWith("timestamp") && typeof value === "number") return new Date(value).toISOString();
  return value;
}

/** Each target table's columns and their types, and which columns generate their values (identity or serial). */
async function targetColumns(sql: Sql): Promise<{ types: Map<string, Map<string, string>>; generated: Set<string> }> {
  const rows = await sql<{ table_name: string; column_name: string; data_type: string; generated: boolean }[]>`
    SELECT table_name, column_name, data_type, (is_identity = 'YES' OR column_default LIKE 'nextval(%') AS generated
    FROM information_schema.columns WHERE table_schema = current_schema()`;
  const types = new Map<string, Map<string, string>>();
  const generated = new Set<string>();
  for (const r of rows) {
    if (!types.has(r.table_name)) types.set(r.table_name, new Map());
    types.get(r.table_name)!.set(r.column_name, r.data_type);
    if (r.generated) generated.add(`${r.table_name}.${r.column_name}`);
  }
  return { types, generated };
}

async function countOf(sql: Sql | SqlTransaction, table: string): Promise<number> {
  const [row] = await sql.unsafe<{ n: number }[]>(`SELECT count(*) AS n FROM ${quoteIdent(table)}`);
  return row!.n;
}

export async function copySqliteToPostgres(db: Database, sql: Sql, options: CopyOptions = {}): Promise<CopyReport> {
  const batchRows = options.batchRows ?? 500;
  // One read transaction: every table is read from the same snapshot.
  db.exec("BEGIN");
  try {
    const tables = sqliteTables(db);
    const { types: target, generated } = await targetColumns(sql);
    const problems: string[] = [];
    const skippedEmpty: string[] = [];
    const toCopy: SqliteTable[] = [];
    for (const t of tables) {
      const columns = target.get(t.name);
      if (!columns) {
        if (t.rows === 0) skippedEmpty.push(t.name);
        else problems.push(`table ${t.name} (${t.rows} rows) has no PostgreSQL counterpart yet`);
        continue;
      }
      const missing = t.columns.filter((c) => !columns.has(c));
      if (missing.length > 0) problems.push(`table ${t.name}: PostgreSQL has no column ${missing.join(", ")}`);
      else toCopy.push(t);
    }
    if (problems.length > 0) throw new CopyRefused(`nothing was copied: ${problems.join("; ")}`);
    const before = new Map<string, number>();
    for (const t of toCopy) before.set(t.name, await countOf(sql, t.name));
    if (!options.append) {
      const filled = toCopy.filter((t) => before.get(t.name)! > 0).map((t) => `${t.name} (${before.get(t.name)} rows)`);
      if (filled.length > 0) throw new CopyRefused(`nothing was copied: the target already holds rows in ${filled.join(", ")}; give --append to copy alongside them`);
    }

    const ordered = parentsFirst(toCopy);
    await sql.begin(async (tx) => {
      for (const t of ordered) {
        const types = target.get(t.name)!;
        const list = t.columns.map(quoteIdent).join(", ");
        const read = db.prepare<Record<string, unknown>, [number, number]>(`SELECT ${list} FROM ${quoteIdent(t.name)}${t.rowid ? " ORDER BY rowid" : ""} LIMIT ? OFFSET ?`);
        let copied = 0;
        for (;;) {
          const batch = read.all(batchRows, copied);
          if (batch.length === 0) break;
          const records = batch.map((row) => Object.fromEntries(t.columns.map((c) => [c, valueFor(row[c], types.get(c)!)])));
          await tx.unsafe(`INSERT INTO ${quoteIdent(t.name)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${quoteIdent(t.name)}, $1::text::json)`, [JSON.stringify(records)]);
          copied += batch.length;
        }
        // Identity and serial columns given copied values: the next generated value comes after them.
        for (const column of t.columns.filter((c) => generated.has(`${t.name}.${c}`))) {
          const [seq] = await tx<{ name: string | null }[]>`SELECT pg_get_serial_sequence(${quoteIdent(t.name)}, ${column}) AS name`;
          if (seq?.name) await tx.unsafe(`SELECT setval($1, max_value) FROM (SELECT max(${quoteIdent(column)}) AS max_value FROM ${quoteIdent(t.name)}) m WHERE max_value IS NOT NULL`, [seq.name]);
        }
        options.progress?.(t.name, copied);
      }
    });

    const copied: TableCopy[] = [];
    const problemsAfter: string[] = [];
    for (const t of ordered) {
      const targetRows = await countOf(sql, t.name);
      const expected = before.get(t.name)! + t.rows;
      if (targetRows !== expected) problemsAfter.push(`${t.name}: ${targetRows} rows in PostgreSQL, ${expected} expected`);
      copied.push({ table: t.name, rows: t.rows, targetRows });
    }
    if (problemsAfter.length > 0) throw new Error(`the copy was committed but its counts do not match: ${problemsAfter.join("; ")}`);
    return { copied, skippedEmpty };
  } finally {
    db.exec("ROLLBACK");
  }
}
