/**
 * @module store/backup — a consistent copy of the live database and putting one back.
 *
 * `VACUUM INTO` reads one snapshot (WAL mode: the server keeps writing meanwhile, nothing
 * waits) and writes a compact, self-contained file with no `-wal` beside it. The copy is made
 * under a temporary name, checked (`integrity_check`), then renamed, so a FILE that exists is
 * always a whole backup. Restoring refuses while a live server holds the data folder and keeps
 * the replaced database (with its `-wal`) beside it.
 *
 * Files of the data folder that the caller names (the evidence signing keys) travel beside the
 * database: a backup FILE gets `FILE.<name>` for each (mode 0600), and restoring FILE puts back
 * those that are there.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { liveServerMark } from "./server-lock.ts";
import { Database } from "./sqlite.ts";
import { databaseFileName } from "./store.ts";

export class BackupError extends Error {
  override readonly name = "BackupError";
}

export interface BackupResult {
  readonly file: string;
  readonly bytes: number;
  readonly ms: number;
  /** Rows per table in the copy (what an operator checks a backup by). */
  readonly rows: Record<string, number>;
  /** Copies of the named data-folder files written beside it (those the folder has). */
  readonly besideFiles: readonly string[];
}

/** Where a backup FILE keeps a copy of the data folder's file `name`. */
export const fileBeside = (backupFile: string, name: string) => `${backupFile}.${name}`;

function copyPrivate(from: string, to: string): void {
  const partial = `${to}.partial-${process.pid}`;
  copyFileSync(from, partial);
  chmodSync(partial, 0o600);
  renameSync(partial, to);
}

export function databasePathIn(dataDir: string): string {
  return join(dataDir, databaseFileName);
}

/** `besideFiles`: names of files in the data folder copied beside the backup (private: mode 0600). */
export function backupDatabase(dataDir: string, target: string, besideFiles: readonly string[] = []): BackupResult {
  const started = performance.now();
  const source = databasePathIn(dataDir);
  if (!existsSync(source)) throw new BackupError(`no database at ${source} (is --data right?)`);
  const file = resolve(target);
  if (existsSync(file)) throw new BackupError(`${file} exists; give a new file name`);
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  const db = new Database(source, { readwrite: true, create: false, strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.run("VACUUM INTO ?", [partial]);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new BackupError(`backup of ${source} failed: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  let rows: Record<string, number>;
  try {
    rows = checkDatabaseFile(partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  const copied: string[] = [];
  for (const name of besideFiles) {
    const from = join(dataDir, name);
    if (!existsSync(from)) continue;
    try {
      copyPrivate(from, fileBeside(file, name));
      copied.push(fileBeside(file, name));
    } catch (error) {
      rmSync(partial, { force: true });
      throw new BackupError(`copying ${from} failed: ${(error as Error).message}`);
    }
  }
  renameSync(partial, file);
  return { file, bytes: statSync(file).size, ms: Math.round(performance.now() - started), rows, besideFiles: copied };
}

export interface RestoreResult {
  readonly database: string;
  /** Where the replaced database was moved, when there was one. */
  readonly previous: string | null;
  readonly rows: Record<string, number>;
  /** The data-folder files put back from beside the backup. */
  readonly besideFiles: readonly string[];
}

export function restoreDatabase(dataDir: string, backupFile: string, now = new Date(), besideFiles: readonly string[] = []): RestoreResult {
  const server = liveServerMark(dataDir);
  if (server) {
    throw new BackupError(`a server (pid ${server.pid}, port ${server.port}, started ${server.startedAt}) holds ${dataDir}: stop it, then restore`);
  }
  const from = resolve(backupFile);
  if (!existsSync(from)) throw new BackupError(`no backup at ${from}`);
  const rows = checkDatabaseFile(from);
  mkdirSync(dataDir, { recursive: true });
  const database = databasePathIn(dataDir);
  const incoming = `${database}.restoring-${process.pid}`;
  copyFileSync(from, incoming);
  let previous: string | null = null;
  if (existsSync(database)) {
    previous = `${database}.before-restore-${now.toISOString().replace(/[:.]/g, "")}`;
    // The -wal may hold committed rows the main file does not: it moves with it.
    for (const suffix of ["", "-wal", "-shm"]) {
      if (existsSync(database + suffix)) renameSync(database + suffix, previous + suffix);
    }
  }
  renameSync(incoming, database);
  const restored: string[] = [];
  for (const name of besideFiles) {
    if (!existsSync(fileBeside(from, name))) continue;
    const into = join(dataDir, name);
    if (existsSync(into)) renameSync(into, `${into}.before-restore-${now.toISOString().replace(/[:.]/g, "")}`);
    copyPrivate(fileBeside(from, name), into);
    restored.push(into);
  }
  return { database, previous, rows, besideFiles: restored };
}

/** Opens a database file read-only and checks it is a whole Tollbooth database; returns rows per table. */
export function checkDatabaseFile(path: string): Record<string, number> {
  let db: Database;
  try {
    db = new Database(path, { readonly: true, strict: true });
  } catch (error) {
    throw new BackupError(`${path} does not open as SQLite: ${(error as Error).message}`);
  }
  try {
    const integrity = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all().map((r) => r.integrity_check);
    if (integrity.join() !== "ok") throw new BackupError(`${path} fails SQLite's integrity check: ${integrity.slice(0, 3).join("; ")}`);
    const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all().map((r) => r.name);
    if (!tables.includes("schema_migrations")) throw new BackupError(`${path} is not a Tollbooth database (no schema_migrations table)`);
    const rows: Record<string, number> = {};
    for (const table of tables) rows[table] = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${table}"`).get()!.n;
    return rows;
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${path} cannot be read as a database: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}
