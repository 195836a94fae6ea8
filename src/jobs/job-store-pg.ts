/**
 * @module jobs/job-store-pg — the jobs table and its queue on PostgreSQL, shared by every instance.
 * A claim takes the oldest claimable job with `FOR UPDATE SKIP LOCKED` under a transaction-scoped
 * advisory lock, so that the count of running jobs it checks against `max_concurrent_jobs` is the
 * cluster's and no two claims interleave; everything else is one conditional statement. Instances
 * are woken by `NOTIFY` on the `tollbooth_jobs` channel when a job becomes claimable (submitted,
 * released after acceptance, requeued); a freed slot is taken by the instance that freed it, and by
 * the others at their next poll.
 * No transaction is held across a network call: the facilitator is called between
 * `beginSettlement` and `finishSettlement`, each its own statement.
 */
import type { Migration } from "../store/db.ts";
import type { Sql } from "../store/postgres.ts";
import {
  type JobStore,
  keptCount,
  type RawRow,
  type RawSettlement,
  refundsIn,
  toRow,
  toSettlement,
  toStatsRow,
} from "./job-store.ts";

/** Same ids as the SQLite migrations (job-store.ts): one schema step per id, in either dialect. */
export const jobPgMigrations: readonly Migration[] = [
  {
    id: "0300_jobs",
    sql: `CREATE TABLE jobs (
      id TEXT PRIMARY KEY,
      skill TEXT NOT NULL,
      sync INTEGER NOT NULL,
      status TEXT NOT NULL,
      input TEXT,
      result TEXT,
      error_code TEXT,
      error_message TEXT,
      caller TEXT NOT NULL,
      payer TEXT,
      network TEXT,
      price_micros BIGINT NOT NULL,
      payment TEXT,
      settle_mode TEXT NOT NULL,
      settled_at TEXT,
      payment_response TEXT,
      refund_state TEXT,
      refund_reason TEXT,
      refund_note TEXT,
      request_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT,
      expires_at TEXT
    );
    CREATE INDEX jobs_status ON jobs (status, created_at);
    CREATE INDEX jobs_created ON jobs (created_at);
    CREATE INDEX jobs_refunds ON jobs (refund_state) WHERE refund_state IS NOT NULL;`,
  },
  {
    id: "0301_job_refund_payment",
    sql: `ALTER TABLE jobs ADD COLUMN refund_claim TEXT;
    ALTER TABLE jobs ADD COLUMN refund_claimed_at TEXT;
    ALTER TABLE jobs ADD COLUMN refund_tx TEXT;
    ALTER TABLE jobs ADD COLUMN refund_raw TEXT;
    ALTER TABLE jobs ADD COLUMN refund_attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN refund_error TEXT;
    ALTER TABLE jobs ADD COLUMN refund_paid_at TEXT;`,
  },
  {
    id: "0302_job_leases",
    sql: `ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
    ALTER TABLE jobs ADD COLUMN lease_expires_at BIGINT;
    ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX jobs_leases ON jobs (lease_expires_at) WHERE lease_owner IS NOT NULL;`,
  },
  {
    id: "0303_job_settlements",
    sql: `CREATE TABLE job_settlements (
      job_id TEXT PRIMARY KEY,
      state TEXT NOT NULL CHECK (state IN ('pending', 'settled', 'failed')),
      worker TEXT NOT NULL,
      attempt INTEGER NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      payment_response TEXT,
      error_code TEXT,
      error_message TEXT
    );`,
  },
];

/** The channel instances listen on for claimable jobs. */
export const jobChannel = "tollbooth_jobs";
/** Key of the advisory lock claims run under ("jobclaim" in ASCII, as an int8). */
const CLAIM_LOCK = "7740969460235233645";

export function createPgJobStore(sql: Sql): JobStore {
  const notify = () => sql.notify(jobChannel, "").then(() => undefined);
  const ok = async (result: Promise<{ count: number }>) => (await result).count === 1;
  const iso = (at: Date) => at.toISOString();
  const countActive = async () => (await sql<{ n: number }[]>`SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')`)[0]?.n ?? 0;
  // Other instances change the count too: it is read again at most once a second, and at once after a change made here.
  const active = keptCount(countActive);
  const changingActive = async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } finally {
      active.forget();
    }
  };

  return {
    shared: true,
    async insert(job) {
      await changingActive(sql`
        INSERT INTO jobs (id, skill, sync, status, input, caller, payer, network, price_micros, payment, settle_mode, request_id, created_at, lease_owner, lease_expires_at)
        VALUES (${job.id}, ${job.skill}, ${job.sync ? 1 : 0}, 'queued', ${JSON.stringify(job.input ?? null)}, ${job.caller}, ${job.payer}, ${job.network}, ${job.priceMicros},
          ${job.payment === null || job.payment === undefined ? null : JSON.stringify(job.payment)}, ${job.settleMode}, ${job.requestId}, ${iso(job.createdAt)},
          ${job.hold?.worker ?? null}, ${job.hold?.untilMs ?? null})`);
      if (!job.hold) await notify();
    },
    async recordSyncCall(call) {
      const finished = iso(call.finishedAt);
      await sql`
        INSERT INTO jobs (id, skill, sync, status, caller, payer, network, price_micros, settle_mode, settled_at, error_code, request_id, created_at, started_at, finished_at, expires_at)
        VALUES (${call.id}, ${call.skill}, 1, ${call.status}, ${call.caller}, ${call.payer}, ${call.network}, ${call.priceMicros}, ${call.settleMode},
          ${call.settled ? finished : null}, ${call.errorCode}, ${call.requestId}, ${iso(call.createdAt)}, ${iso(call.startedAt)}, ${finished}, ${finished})`;
    },
    async get(id) {
      const [row] = await sql<RawRow[]>`SELECT * FROM jobs WHERE id = ${id}`;
      return row ? toRow(row) : undefined;
    },
    markRunning: (id, at) => ok(sql`UPDATE jobs SET status = 'running', started_at = ${iso(at)} WHERE id = ${id} AND status = 'queued'`),
    async claimNext({ worker, leaseMs, cap, now }) {
      const rows = (await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${CLAIM_LOCK}::int8)`;
        // A fresh snapshot after the lock: every claim committed before this one is counted.
        return tx<RawRow[]>`
          UPDATE jobs SET status = 'running', started_at = ${iso(now)}, lease_owner = ${worker}, lease_expires_at = ${now.getTime() + leaseMs}, attempts = attempts + 1
          WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND lease_owner IS NULL ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
            AND (SELECT count(*) FROM jobs WHERE status = 'running') < ${cap}
          RETURNING *`;
      })) as RawRow[];
      return rows[0] ? toRow(rows[0]) : undefined;
    },
    async renewLeases(worker, untilMs) {
      return (await sql`UPDATE jobs SET lease_expires_at = ${untilMs} WHERE lease_owner = ${worker} AND status IN ('queued', 'running')`).count;
    },
    async releaseHold(id, worker) {
      const released = await ok(sql`UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ${id} AND lease_owner = ${worker} AND status = 'queued' AND attempts = 0`);
      if (released) await notify();
      return released;
    },
    async expiredLeases(nowMs) {
      const rows = await sql<RawRow[]>`
        SELECT * FROM jobs WHERE lease_owner IS NOT NULL AND lease_expires_at < ${nowMs} AND status IN ('queued', 'running') ORDER BY lease_expires_at`;
      return rows.map(toRow);
    },
    async requeue(id, lease) {
      const done = await ok(sql`
        UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${id} AND lease_owner = ${lease.worker} AND attempts = ${lease.attempt} AND status IN ('queued', 'running')`);
      if (done) await notify();
      return done;
    },
    async markSettled(id, paymentResponse, at) {
      await sql`UPDATE jobs SET settled_at = ${iso(at)}, payment_response = ${paymentResponse}, payment = NULL WHERE id = ${id}`;
    },
    async markSettleMode(id, mode) {
      await sql`UPDATE jobs SET settle_mode = ${mode} WHERE id = ${id}`;
    },
    async complete(id, result, at, expiresAt, lease) {
      const fenced = lease ? sql`AND status = 'running' AND lease_owner = ${lease.worker} AND attempts = ${lease.attempt}` : sql``;
      return changingActive(ok(sql`
        UPDATE jobs SET status = 'completed', result = ${JSON.stringify(result ?? null)}, input = NULL, payment = NULL, finished_at = ${iso(at)}, expires_at = ${iso(expiresAt)},
          lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${id} ${fenced}`));
    },
    async fail(id, outcome, at, expiresAt, lease) {
      const fenced = lease ? sql`AND status IN ('queued', 'running') AND lease_owner = ${lease.worker} AND attempts = ${lease.attempt}` : sql``;
      const refund = outcome.refundReason;
      return changingActive(ok(sql`
        UPDATE jobs SET status = ${outcome.status}, error_code = ${outcome.code}, error_message = ${outcome.message}, input = NULL, payment = NULL, result = NULL,
          refund_state = CASE WHEN ${refund}::text IS NULL THEN refund_state ELSE 'due' END,
          refund_reason = COALESCE(${refund}::text, refund_reason),
          started_at = COALESCE(started_at, ${iso(at)}), finished_at = ${iso(at)}, expires_at = ${iso(expiresAt)}, lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${id} ${fenced}`));
    },
    async discard(id) {
      await sql`DELETE FROM job_settlements WHERE job_id = ${id}`;
      await changingActive(sql`DELETE FROM jobs WHERE id = ${id}`);
    },
    async beginSettlement(id, lease, at) {
      const begun = await sql`
        INSERT INTO job_settlements (job_id, state, worker, attempt, started_at)
        SELECT id, 'pending', ${lease.worker}, ${lease.attempt}, ${iso(at)} FROM jobs
        WHERE id = ${id} AND lease_owner = ${lease.worker} AND attempts = ${lease.attempt} AND status IN ('queued', 'running')
        ON CONFLICT (job_id) DO NOTHING RETURNING 1`;
      if (begun.length === 1) return { kind: "begun" };
      const [existing] = await sql<RawSettlement[]>`SELECT * FROM job_settlements WHERE job_id = ${id}`;
      return existing ? { kind: "exists", settlement: toSettlement(existing) } : { kind: "lease_lost" };
    },
    async finishSettlement(id, outcome, at) {
      if (outcome.state === "settled") {
        // One statement: the row and the job say "settled" together.
        await sql`
          WITH finished AS (
            UPDATE job_settlements SET state = 'settled', finished_at = ${iso(at)}, payment_response = ${outcome.paymentResponse}
            WHERE job_id = ${id} AND state = 'pending' RETURNING job_id
          )
          UPDATE jobs SET settled_at = ${iso(at)}, payment_response = ${outcome.paymentResponse}, payment = NULL WHERE id IN (SELECT job_id FROM finished)`;
      } else {
        await sql`
          UPDATE job_settlements SET state = 'failed', finished_at = ${iso(at)}, error_code = ${outcome.code}, error_message = ${outcome.message}
          WHERE job_id = ${id} AND state = 'pending'`;
      }
    },
    async settlementOf(id) {
      const [row] = await sql<RawSettlement[]>`SELECT * FROM job_settlements WHERE job_id = ${id}`;
      return row ? toSettlement(row) : undefined;
    },
    listByStatus: async (status) => (await sql<RawRow[]>`SELECT * FROM jobs WHERE status = ${status} ORDER BY created_at, id`).map(toRow),
    countByStatus: async (status) => (await sql<{ n: number }[]>`SELECT count(*) AS n FROM jobs WHERE status = ${status}`)[0]?.n ?? 0,
    countActive,
    recentActiveCount: () => active.get(),
    async statsRows(since) {
      const rows = await sql<Parameters<typeof toStatsRow>[0][]>`
        SELECT status, payer, network, settled_at, settle_mode, started_at, finished_at FROM jobs WHERE created_at >= ${iso(since)}`;
      return rows.map(toStatsRow);
    },
    listRefunds: async (state) => refundsIn((await sql<RawRow[]>`SELECT * FROM jobs WHERE refund_state IS NOT NULL ORDER BY finished_at`).map(toRow), state),
    markRefundPaid: (id, note) =>
      ok(sql`
        UPDATE jobs SET refund_state = 'paid', refund_note = ${note}, refund_paid_at = ${new Date().toISOString()}, refund_raw = NULL, refund_claim = NULL
        WHERE id = ${id} AND refund_state IN ('due', 'sending')`),
    async purge(now, rowsBefore) {
      const results = (
        await sql`UPDATE jobs SET result = NULL, input = NULL, payment_response = NULL, expires_at = NULL WHERE expires_at IS NOT NULL AND expires_at <= ${iso(now)}`
      ).count;
      const rows = (
        await sql`
          DELETE FROM jobs WHERE created_at < ${iso(rowsBefore)} AND status IN ('completed', 'failed', 'expired') AND (refund_state IS NULL OR refund_state = 'paid')`
      ).count;
      if (rows) await sql`DELETE FROM job_settlements s WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = s.job_id)`;
      return { results, rows };
    },
    async subscribe(listener) {
      const { unlisten } = await sql.listen(jobChannel, () => listener());
      return unlisten;
    },
  };
}
