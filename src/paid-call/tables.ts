/**
 * @module paid-call/tables — the per-caller rate-limit windows every paid call takes from: a table
 * on PostgreSQL, where the count holds for the cluster (rate-limit-pg.ts), and a count in memory on
 * one SQLite instance (rate-limit.ts), where a restart forgiving everyone is harmless and a table
 * would add a write to every paid call for nothing.
 */
import type { ModuleTables } from "../module/define.ts";
import { createRateLimiter, type RateLimiter, type RateLimiterOptions } from "./rate-limit.ts";
import { createPgRateLimiter, rateLimitPgMigrations } from "./rate-limit-pg.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    /** Paid calls per minute per caller: one instance counts in memory; on PostgreSQL the count holds for the cluster. */
    rateLimiter(options: RateLimiterOptions): RateLimiter;
  }
}

export const tables = {
  family: "rate limits",
  sqlite: [],
  postgres: rateLimitPgMigrations,
  outsideSqlite: "one instance counts each caller's window in memory",
  openSqlite: () => ({ rateLimiter: (options: RateLimiterOptions) => createRateLimiter(options) }),
  openPostgres: (sql) => ({ rateLimiter: (options: RateLimiterOptions) => createPgRateLimiter(sql, options) }),
} satisfies ModuleTables;
