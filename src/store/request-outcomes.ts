/**
 * @module store/request-outcomes — basic request outcomes (spec web-evidence §1: "only settlement
 * receipts and basic request outcomes are retained"): route pattern, status, code, duration.
 * Never the body, target URLs, page text or baselines.
 */
import type { Database, Migration } from "./db.ts";

export const requestOutcomeMigrations: Migration[] = [
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

export interface RequestOutcome {
  requestId: string;
  operationId: string | null;
  method: string;
  route: string;
  status: number;
  /** `ok`, `challenge`, or the error code. */
  outcome: string;
  durationMs: number;
  at: string;
}

export interface RequestOutcomeStore {
  /** Queues a row; rows are written together (one transaction) every second or every 256 rows. */
  record(outcome: RequestOutcome): void;
  /** Writes what is queued now (on SQLite before it returns). */
  flush(): Promise<void>;
  recent(limit: number): Promise<RequestOutcome[]>;
}

export const flushEveryMs = 1000;
export const flushAtRows = 256;

export interface OutcomeRow {
  request_id: string;
  operation_id: string | null;
  method: string;
  route: string;
  status: number;
  outcome: string;
  duration_ms: number;
  at: string;
}

export function outcomeOf(r: OutcomeRow): RequestOutcome {
  return { requestId: r.request_id, operationId: r.operation_id, method: r.method, route: r.route, status: r.status, outcome: r.outcome, durationMs: r.duration_ms, at: r.at };
}

/**
 * Outcomes are statistics, not money: writing them in batches keeps a SQLite commit off every
 * request's path (measured: one commit per request cost more than the rest of a cheap call). A
 * crash loses at most the last second of outcome rows; receipts are written at once elsewhere.
 */
export function createRequestOutcomeStore(db: Database): RequestOutcomeStore {
  const insert = db.prepare<unknown, [string, string | null, string, string, number, string, number, string]>(
    `INSERT OR REPLACE INTO request_outcomes (request_id, operation_id, method, route, status, outcome, duration_ms, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const recent = db.prepare<OutcomeRow, [number]>("SELECT * FROM request_outcomes ORDER BY at DESC LIMIT ?");
  let queue: RequestOutcome[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const writeAll = db.transaction((rows: RequestOutcome[]) => {
    for (const o of rows) insert.run(o.requestId, o.operationId, o.method, o.route, o.status, o.outcome, o.durationMs, o.at);
  });
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (queue.length === 0) return;
    const rows = queue;
    queue = [];
    writeAll(rows);
  };
  return {
    record(o) {
      queue.push(o);
      if (queue.length >= flushAtRows) flush();
      else if (!timer) {
        timer = setTimeout(flush, flushEveryMs);
        timer.unref?.();
      }
    },
    flush: async () => flush(),
    async recent(limit) {
      flush();
      return recent.all(limit).map(outcomeOf);
    },
  };
}
