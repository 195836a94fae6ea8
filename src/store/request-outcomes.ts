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
  record(outcome: RequestOutcome): void;
  recent(limit: number): RequestOutcome[];
}

export function createRequestOutcomeStore(db: Database): RequestOutcomeStore {
  const insert = db.prepare<unknown, [string, string | null, string, string, number, string, number, string]>(
    `INSERT OR REPLACE INTO request_outcomes (request_id, operation_id, method, route, status, outcome, duration_ms, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const recent = db.prepare<
    { request_id: string; operation_id: string | null; method: string; route: string; status: number; outcome: string; duration_ms: number; at: string },
    [number]
  >("SELECT * FROM request_outcomes ORDER BY at DESC LIMIT ?");
  return {
    record(o) {
      insert.run(o.requestId, o.operationId, o.method, o.route, o.status, o.outcome, o.durationMs, o.at);
    },
    recent(limit) {
      return recent.all(limit).map((r) => ({
        requestId: r.request_id,
        operationId: r.operation_id,
        method: r.method,
        route: r.route,
        status: r.status,
        outcome: r.outcome,
        durationMs: r.duration_ms,
        at: r.at,
      }));
    },
  };
}
