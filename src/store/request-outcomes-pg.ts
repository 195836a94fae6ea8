/**
 * @module store/request-outcomes-pg — request outcomes on PostgreSQL, in the table every instance
 * writes, so the operator's figures count the whole cluster. Batched as on SQLite (every second or
 * 256 rows, one multi-row statement); a write that fails is reported to `onError` (the service
 * logs it) and its rows dropped (statistics, not money: receipts are written at once elsewhere).
 */
import type { Migration } from "./db.ts";
import type { Sql } from "./postgres.ts";
import { flushAtRows, flushEveryMs, outcomeOf, type OutcomeRow, type RequestOutcome, type RequestOutcomeStore } from "./request-outcomes.ts";

/** Same id as the SQLite migration. */
export const requestOutcomePgMigrations: readonly Migration[] = [
  {
    id: "0120_request_outcomes",
    sql: `CREATE TABLE request_outcomes (
      request_id TEXT PRIMARY KEY,
      operation_id TEXT,
      method TEXT NOT NULL,
      route TEXT NOT NULL,
      status INTEGER NOT NULL,
      outcome TEXT NOT NULL,
      duration_ms INTEGER NOT NULL,
      at TEXT NOT NULL
    );
    CREATE INDEX request_outcomes_at ON request_outcomes (at);`,
  },
];

export function createPgRequestOutcomeStore(sql: Sql, onError: (error: Error) => void = () => {}): RequestOutcomeStore {
  let queue: RequestOutcome[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  const write = async (rows: RequestOutcome[]) => {
    // One row per request id (a replaced outcome keeps the last), as INSERT OR REPLACE does.
    const byId = new Map(rows.map((o) => [o.requestId, o]));
    const values = [...byId.values()].map((o) => ({
      request_id: o.requestId,
      operation_id: o.operationId,
      method: o.method,
      route: o.route,
      status: o.status,
      outcome: o.outcome,
      duration_ms: Math.round(o.durationMs),
      at: o.at,
    }));
    await sql`
      INSERT INTO request_outcomes ${sql(values)}
      ON CONFLICT (request_id) DO UPDATE SET operation_id = excluded.operation_id, method = excluded.method, route = excluded.route,
        status = excluded.status, outcome = excluded.outcome, duration_ms = excluded.duration_ms, at = excluded.at`;
  };
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (queue.length > 0) {
      const rows = queue;
      queue = [];
      // One write at a time, in order: a later outcome of one request id stays the last.
      writing = writing.then(() => write(rows)).catch((error: Error) => onError(error));
    }
    return writing;
  };
  return {
    record(o) {
      queue.push(o);
      if (queue.length >= flushAtRows) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), flushEveryMs);
        timer.unref?.();
      }
    },
    flush,
    async recent(limit) {
      await flush();
      return (await sql<OutcomeRow[]>`SELECT * FROM request_outcomes ORDER BY at DESC LIMIT ${limit}`).map(outcomeOf);
    },
  };
}
