/**
 * @module cli/backup — `tollbooth backup [FILE]` and `tollbooth restore FILE`: the CLI face of
 * store/backup.ts. Without FILE, backup writes a time-stamped file into --backup-dir.
 */
import { join } from "node:path";
import type { Config } from "../config.ts";
import { evidenceKeyFileName } from "../evidence/key-file.ts";
import { BackupError, backupDatabase, restoreDatabase } from "../store/backup.ts";

export function backupFileName(now: Date): string {
  return `tollbooth-${now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}.db`;
}

const rowSummary = (rows: Record<string, number>) =>
  ["payment_receipts", "jobs", "request_outcomes"].filter((t) => t in rows).map((t) => `${rows[t]} ${t}`).join(", ");

export function backupForCli(config: Config, file: string | undefined): number {
  const target = file ?? (config.backupDir ? join(config.backupDir, backupFileName(new Date())) : undefined);
  if (!target) {
    console.error("tollbooth backup: give FILE, or set --backup-dir (TOLLBOOTH_BACKUP_DIR) for time-stamped files");
    return 2;
  }
  try {
    const result = backupDatabase(config.data, target, [evidenceKeyFileName]);
    console.log(`backup written: ${result.file} (${result.bytes} bytes in ${result.ms} ms; ${rowSummary(result.rows)})`);
    for (const copy of result.besideFiles) console.log(`with ${copy} (mode 0600: it holds the evidence signing key)`);
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(`tollbooth backup: ${error.message}`);
    return 1;
  }
}

export function restoreForCli(config: Config, file: string | undefined): number {
  if (!file) {
    console.error("tollbooth restore: give the backup FILE to restore");
    return 2;
  }
  try {
    const result = restoreDatabase(config.data, file, new Date(), [evidenceKeyFileName]);
    console.log(`restored ${file} into ${result.database} (${rowSummary(result.rows)})`);
    if (result.previous) console.log(`the database it replaced was kept as ${result.previous}`);
    for (const restored of result.besideFiles) console.log(`put back ${restored}`);
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(`tollbooth restore: ${error.message}`);
    return 1;
  }
}
