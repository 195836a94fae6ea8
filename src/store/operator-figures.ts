/**
 * @module store/operator-figures — read-only figures for the operator (admin dashboard and
 * `/metrics`): revenue by day, route and network from settled receipts, calls and errors from
 * request outcomes, settlements, refunds, the job queue. Money stays in atomic units here;
 * the admin layer turns it into dollars with each network's decimals. Asynchronous, for either
 * engine: SQLite here, PostgreSQL in operator-figures-pg.ts (the tables every instance shares).
 */
import type { Database } from "./db.ts";
import { listRecentReceipts, type ReceiptRow } from "./receipt-list.ts";

export interface RevenueRow {
  readonly key: string;
  readonly network: string;
  readonly calls: number;
  /** Sum of atomic amounts (fits a double: 2^53 atomic USDC units is 9 billion dollars). */
  readonly atomic: number;
}

export interface CallRow {
  readonly key: string;
  readonly calls: number;
  /** 402 price previews (not errors). */
  readonly challenges: number;
  /** 4xx other than 402: refused calls (validation, rate limit, pause, ...). */
  readonly refused: number;
  /** 5xx: our failures. */
  readonly failed: number;
}

export interface OperatorFigures {
  /** Settled receipts since `since`, grouped by UTC day (YYYY-MM-DD) and network. */
  revenueByDay(since: Date): Promise<RevenueRow[]>;
  /** Settled receipts since `since`, grouped by operation (plugin or skill id) and network. */
  revenueByOperation(since: Date): Promise<RevenueRow[]>;
  /** Every settled receipt ever, by network (counters for /metrics). */
  revenueByNetwork(): Promise<RevenueRow[]>;
  callsByDay(since: Date): Promise<CallRow[]>;
  callsByRoute(since: Date): Promise<CallRow[]>;
  receiptsByState(): Promise<Record<string, number>>;
  /** Settlement latency sample: seconds from reservation to settlement of receipts settled after `after` (ISO). */
  settledSince(after: string): Promise<{ network: string; seconds: number; settledAt: string }[]>;
  jobsByStatus(): Promise<Record<string, number>>;
  refundsByState(): Promise<{ state: string; count: number; micros: number }[]>;
  /** Jobs (and sync skill calls) finished after `after` (ISO), created after `createdAfter`, oldest first. */
  finishedJobs(after: string, createdAfter: string): Promise<{ skill: string; status: string; seconds: number; finishedAt: string }[]>;
  /** The latest receipts, newest first (`tollbooth receipts`, the dashboard), optionally of one state. */
  recentReceipts(limit: number, state?: string): Promise<ReceiptRow[]>;
}

export type { ReceiptRow } from "./receipt-list.ts";

const dayOf = "substr(settled_at, 1, 10)";
const outcomeSums = `count(*) AS calls,
  sum(status = 402) AS challenges,
  sum(status >= 400 AND status < 500 AND status != 402) AS refused,
  sum(status >= 500) AS failed`;

export function createOperatorFigures(db: Database): OperatorFigures {
  const revenue = (group: string, where: string) =>
    db.query<RevenueRow, [string] | []>(
      `SELECT ${group} AS key, network, count(*) AS calls, coalesce(sum(CAST(amount AS INTEGER)), 0) AS atomic
       FROM payment_receipts WHERE state = 'settled' ${where} GROUP BY key, network ORDER BY key, network`,
    );
  const byDay = revenue(dayOf, "AND settled_at >= ?");
  const byOperation = revenue("coalesce(operation_id, '-')", "AND settled_at >= ?");
  const byNetwork = revenue("network", "");
  const calls = (group: string) =>
    db.query<CallRow, [string]>(`SELECT ${group} AS key, ${outcomeSums} FROM request_outcomes WHERE at >= ? GROUP BY key ORDER BY key`);
  const callsDay = calls("substr(at, 1, 10)");
  const callsRoute = calls("route");
  const receiptStates = db.query<{ state: string; n: number }, []>("SELECT state, count(*) AS n FROM payment_receipts GROUP BY state");
  const settled = db.query<{ network: string; seconds: number; settled_at: string }, [string]>(
    `SELECT network, (julianday(settled_at) - julianday(created_at)) * 86400.0 AS seconds, settled_at
     FROM payment_receipts WHERE state = 'settled' AND settled_at > ? ORDER BY settled_at LIMIT 10000`,
  );
  const jobStates = db.query<{ status: string; n: number }, []>("SELECT status, count(*) AS n FROM jobs GROUP BY status");
  const refunds = db.query<{ state: string; count: number; micros: number }, []>(
    "SELECT refund_state AS state, count(*) AS count, coalesce(sum(price_micros), 0) AS micros FROM jobs WHERE refund_state IS NOT NULL GROUP BY refund_state",
  );
  const finished = db.query<{ skill: string; status: string; seconds: number; finished_at: string }, [string, string]>(
    `SELECT skill, status, (julianday(finished_at) - julianday(coalesce(started_at, created_at))) * 86400.0 AS seconds, finished_at
     FROM jobs WHERE created_at >= ? AND finished_at > ? ORDER BY finished_at LIMIT 10000`,
  );
  const counts = (rows: { n: number }[], key: (r: never) => string) => Object.fromEntries(rows.map((r) => [key(r as never), r.n]));
  return {
    revenueByDay: async (since) => byDay.all(since.toISOString()),
    revenueByOperation: async (since) => byOperation.all(since.toISOString()),
    revenueByNetwork: async () => byNetwork.all(),
    callsByDay: async (since) => callsDay.all(since.toISOString()),
    callsByRoute: async (since) => callsRoute.all(since.toISOString()),
    receiptsByState: async () => counts(receiptStates.all(), (r: { state: string }) => r.state),
    settledSince: async (after) => settled.all(after).map((r) => ({ network: r.network, seconds: r.seconds, settledAt: r.settled_at })),
    jobsByStatus: async () => counts(jobStates.all(), (r: { status: string }) => r.status),
    refundsByState: async () => refunds.all(),
    finishedJobs: async (after, createdAfter) =>
      finished.all(createdAfter, after).map((r) => ({ skill: r.skill, status: r.status, seconds: r.seconds, finishedAt: r.finished_at })),
    recentReceipts: async (limit, state) => listRecentReceipts(db, limit, state),
  };
}
