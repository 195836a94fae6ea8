/**
 * @module jobs/tables — the job queue (with the refund columns the shared ledger reads) and the
 * idempotency keys on both engines, and the `store.jobs` and `store.idempotencyKeys` facets over them.
 */
import type { ModuleTables } from "../module/define.ts";
import { createPgRefundLedger } from "../refunds/ledger-pg.ts";
import { createIdempotencyStore, idempotencyMigrations } from "./idempotency.ts";
import { type IdempotencyKeys, sqliteIdempotencyKeys } from "./idempotency-keys.ts";
import { createPgIdempotencyKeys, idempotencyPgMigrations } from "./idempotency-pg.ts";
import { jobMigrations, type JobStoreWithRefunds } from "./job-store.ts";
import { createPgJobStore, jobPgMigrations } from "./job-store-pg.ts";
import { createJobStore } from "./job-store-sqlite.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    /** The job queue, and the refunds owed on jobs. */
    readonly jobs: JobStoreWithRefunds;
    /** Idempotency keys remembered for `ttlMs`: one execution per key, from any instance. */
    idempotencyKeys(ttlMs: number): IdempotencyKeys;
  }
}

export const tables = {
  family: "jobs and idempotency keys",
  sqlite: [...jobMigrations, ...idempotencyMigrations],
  postgres: [...jobPgMigrations, ...idempotencyPgMigrations],
  openSqlite: (db) => ({ jobs: createJobStore(db), idempotencyKeys: (ttlMs: number) => sqliteIdempotencyKeys(createIdempotencyStore(db, ttlMs)) }),
  openPostgres: (sql) => ({
    jobs: { ...createPgJobStore(sql), ...createPgRefundLedger(sql, { table: "jobs", settled: "settled_at IS NOT NULL", orderBy: "finished_at" }) },
    idempotencyKeys: (ttlMs: number) => createPgIdempotencyKeys(sql, ttlMs),
  }),
} satisfies ModuleTables;
