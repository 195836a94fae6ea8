/**
 * @module paid-call/rate-limit-pg — the per-caller limit for every instance sharing one PostgreSQL:
 * one row per caller holds its window. Taking a call is one upsert that opens a fresh window,
 * counts into the current one, or (at the limit) changes nothing and returns no row, so two
 * instances counting the same caller at once never both pass the last slot. A refused call is not
 * counted, as in memory. Windows run on each instance's clock (keep them NTP-synchronised).
 */
import type { Migration } from "../store/db.ts";
import type { Sql } from "../store/postgres.ts";
import { decisionOf, type RateLimiter, type RateLimiterOptions, rateWindowMs } from "./rate-limit.ts";

/** PostgreSQL only: one instance on SQLite counts in memory. */
export const rateLimitPgMigrations: readonly Migration[] = [
  {
    id: "0130_rate_limit_windows",
    sql: `CREATE TABLE rate_limit_windows (caller TEXT PRIMARY KEY, started_at BIGINT NOT NULL, count INTEGER NOT NULL);
    CREATE INDEX rate_limit_windows_started ON rate_limit_windows (started_at);`,
  },
];

/** Closed windows are deleted at most this often per instance. */
const sweepEveryMs = rateWindowMs;

export function createPgRateLimiter(sql: Sql, options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const { perMinute } = options;
  let lastSweep = 0;
  return {
    async take(caller) {
      const at = now();
      if (at - lastSweep >= sweepEveryMs) {
        lastSweep = at;
        await sql`DELETE FROM rate_limit_windows WHERE started_at <= ${at - rateWindowMs}`;
      }
      const opens = at - rateWindowMs;
      const [counted] = await sql<{ started_at: number; count: number }[]>`
        INSERT INTO rate_limit_windows AS w (caller, started_at, count) VALUES (${caller}, ${at}, 1)
        ON CONFLICT (caller) DO UPDATE SET
          started_at = CASE WHEN w.started_at <= ${opens} THEN excluded.started_at ELSE w.started_at END,
          count = CASE WHEN w.started_at <= ${opens} THEN 1 ELSE w.count + 1 END
        WHERE w.started_at <= ${opens} OR w.count < ${perMinute}
        RETURNING started_at, count`;
      if (counted) return decisionOf(perMinute, counted.started_at, counted.count, true, at);
      const [full] = await sql<{ started_at: number }[]>`SELECT started_at FROM rate_limit_windows WHERE caller = ${caller}`;
      return decisionOf(perMinute, full?.started_at ?? at, perMinute, false, at);
    },
  };
}
