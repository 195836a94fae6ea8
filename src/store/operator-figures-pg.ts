/**
 * @module store/operator-figures-pg — the operator's figures read from the tables every instance
 * shares on PostgreSQL: the same questions as operator-figures.ts, in PostgreSQL's dialect. Times
 * are ISO text in the receipts and outcome tables; the job columns are read through `::timestamptz`
 * so they answer alike whether that family keeps text or timestamps.
 */
import type { CallRow, OperatorFigures, ReceiptRow, RevenueRow } from "./operator-figures.ts";
import type { Sql } from "./postgres.ts";

const outcomeSums = `count(*) AS calls,
  count(*) FILTER (WHERE status = 402) AS challenges,
  count(*) FILTER (WHERE status >= 400 AND status < 500 AND status <> 402) AS refused,
  count(*) FILTER (WHERE status >= 500) AS failed`;
const isoOf = (column: string) => `to_char((${column})::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export function createPgOperatorFigures(sql: Sql): OperatorFigures {
  const revenue = (group: string, since: Date | undefined) =>
    sql<RevenueRow[]>`
      SELECT ${sql.unsafe(group)} AS key, network, count(*) AS calls, coalesce(sum(amount::numeric), 0)::int8 AS atomic
      FROM payment_receipts WHERE state = 'settled' ${since ? sql`AND settled_at >= ${since.toISOString()}` : sql``}
      GROUP BY 1, network ORDER BY (${sql.unsafe(group)}) COLLATE "C", network COLLATE "C"`;
  const calls = (group: string, since: Date) =>
    sql<CallRow[]>`SELECT ${sql.unsafe(group)} AS key, ${sql.unsafe(outcomeSums)} FROM request_outcomes WHERE at >= ${since.toISOString()} GROUP BY 1 ORDER BY (${sql.unsafe(group)}) COLLATE "C"`;
  const counts = <K extends string>(rows: readonly ({ n: number } & Record<K, string>)[], key: K) => Object.fromEntries(rows.map((r) => [r[key], r.n]));
  return {
    revenueByDay: async (since) => [...(await revenue("substr(settled_at, 1, 10)", since))],
    revenueByOperation: async (since) => [...(await revenue("coalesce(operation_id, '-')", since))],
    revenueByNetwork: async () => [...(await revenue("network", undefined))],
    callsByDay: async (since) => [...(await calls("substr(at, 1, 10)", since))],
    callsByRoute: async (since) => [...(await calls("route", since))],
    receiptsByState: async () => counts(await sql<{ state: string; n: number }[]>`SELECT state, count(*) AS n FROM payment_receipts GROUP BY state`, "state"),
    async settledSince(after) {
      const rows = await sql<{ network: string; seconds: number; settled_at: string }[]>`
        SELECT network, extract(epoch FROM (settled_at::timestamptz - created_at::timestamptz))::float8 AS seconds, settled_at
        FROM payment_receipts WHERE state = 'settled' AND settled_at > ${after} ORDER BY settled_at LIMIT 10000`;
      return rows.map((r) => ({ network: r.network, seconds: r.seconds, settledAt: r.settled_at }));
    },
    jobsByStatus: async () => counts(await sql<{ status: string; n: number }[]>`SELECT status, count(*) AS n FROM jobs GROUP BY status`, "status"),
    async refundsByState() {
      return [
        ...(await sql<{ state: string; count: number; micros: number }[]>`
          SELECT refund_state AS state, count(*) AS count, coalesce(sum(price_micros), 0)::int8 AS micros FROM jobs WHERE refund_state IS NOT NULL GROUP BY refund_state`),
      ];
    },
    async finishedJobs(after, createdAfter) {
      const rows = await sql<{ skill: string; status: string; seconds: number; finished_at: string }[]>`
        SELECT skill, status, extract(epoch FROM (finished_at::timestamptz - coalesce(started_at, created_at)::timestamptz))::float8 AS seconds,
          ${sql.unsafe(isoOf("finished_at"))} AS finished_at
        FROM jobs WHERE created_at::timestamptz >= ${createdAfter}::timestamptz AND finished_at::timestamptz > ${after}::timestamptz
        ORDER BY finished_at LIMIT 10000`;
      return rows.map((r) => ({ skill: r.skill, status: r.status, seconds: r.seconds, finishedAt: r.finished_at }));
    },
    async recentReceipts(limit, state) {
      return [
        ...(await sql<ReceiptRow[]>`
          SELECT updated_at, state, network, payer, amount, operation_id, transaction_id, reason FROM payment_receipts
          ${state ? sql`WHERE state = ${state}` : sql``} ORDER BY updated_at DESC LIMIT ${limit}`),
      ];
    },
  };
}
