/**
 * @module cli/migrate-store — `tollbooth migrate-store --from sqlite:DIR --to postgres://…`: moves an
 * existing data folder to PostgreSQL. The target is first migrated to every PostgreSQL schema step
 * known to this build, then store/copy-to-postgres.ts copies every table in one transaction and
 * checks the counts. The evidence signing keys (a file beside the SQLite database) go into the
 * database's key table, so results signed before the move still verify. Run it with the server
 * stopped: rows written after the copy's snapshot stay behind in SQLite.
 */
import { existsSync } from "node:fs";
import { EvidenceKeyError, evidenceKeyPath, readEvidenceKeyFile } from "../evidence/key-file.ts";
import { importEvidenceKeys } from "../evidence/key-set-pg.ts";
import { join } from "node:path";
import { allMigrations, allPgMigrations, databaseFileName, redactedUrl } from "../database.ts";
import { CopyRefused, copySqliteToPostgres } from "../store/copy-to-postgres.ts";
import { openDatabase } from "../store/db.ts";
import { openPostgres } from "../store/postgres.ts";

export interface MigrateStoreArgs {
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly append: boolean;
}

function fail(message: string, code = 2): number {
  console.error(`tollbooth migrate-store: ${message}`);
  return code;
}

export async function migrateStoreForCli(args: MigrateStoreArgs, print: (line: string) => void = console.log): Promise<number> {
  if (!args.from?.startsWith("sqlite:") || args.from.length === "sqlite:".length) return fail("--from must be sqlite:DIR, the data folder holding tollbooth.db");
  if (!args.to || !/^postgres(ql)?:\/\//.test(args.to)) return fail("--to must be a postgres:// (or postgresql://) URL");
  const dir = args.from.slice("sqlite:".length);
  const path = join(dir, databaseFileName);
  if (!existsSync(path)) return fail(`no ${databaseFileName} in ${dir}`);

  // The source is brought to this build's schema first, as `serve` would on start.
  const db = openDatabase({ path, migrations: allMigrations });
  let sql;
  try {
    sql = await openPostgres({ url: args.to, migrations: allPgMigrations, max: 2 });
  } catch (error) {
    db.close();
    return fail(`could not open or migrate ${redactedUrl(args.to)}: ${(error as Error).message}`, 1);
  }
  try {
    const report = await copySqliteToPostgres(db, sql, { append: args.append, progress: (table, rows) => print(`copied ${table}: ${rows} rows`) });
    for (const t of report.skippedEmpty) print(`skipped ${t}: empty, and no PostgreSQL table for it yet`);
    print(`verified: ${report.copied.map((t) => `${t.table} ${t.targetRows}`).join(", ")} rows in ${redactedUrl(args.to)}`);
    if (existsSync(evidenceKeyPath(dir))) {
      try {
        print(`imported ${await importEvidenceKeys(sql, readEvidenceKeyFile(dir))} evidence signing key(s) from ${evidenceKeyPath(dir)}`);
      } catch (error) {
        if (!(error instanceof EvidenceKeyError)) throw error;
        print(`evidence signing keys not imported: ${error.message}`);
      }
    }
    return 0;
  } catch (error) {
    return fail(error instanceof CopyRefused ? error.message : `the copy failed and was rolled back: ${(error as Error).message}`, 1);
  } finally {
    db.close();
    await sql.end({ timeout: 5 });
  }
}
