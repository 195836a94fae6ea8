/**
 * @module jobs/job-store-sqlite — the jobs table and its queue on SQLite (the default engine, one
 * instance): each step one prepared statement, or one transaction where two must agree. SQLite has
 * one writer at a time, so a claim's cap count and its update cannot interleave with another claim.
 */
import type { Database } from "../store/db.ts";
import { createRefundLedger } from "../refunds/ledger.ts";
import { createJobSignal, type JobSignal } from "./job-signal.ts";
import { type JobLease, type JobStoreWithRefunds, type RawRow, type RawSettlement, keptCount, refundsIn, toRow, toSettlement, toStatsRow } from "./job-store.ts";

const finishedStatuses = "('completed', 'failed', 'expired')";

export function createJobStore(db: Database): JobStoreWithRefunds {
  const signal: JobSignal = createJobSignal();
  const insert = db.prepare(
    `INSERT INTO jobs (id, skill, sync, status, input, caller, payer, network, price_micros, payment, settle_mode, request_id, created_at, lease_owner, lease_expires_at)
     VALUES ($id, $skill, $sync, 'queued', $input, $caller, $payer, $network, $price, $payment, $mode, $requestId, $createdAt, $holder, $holdUntil)`,
  );
  const insertSync = db.prepare(
    `INSERT INTO jobs (id, skill, sync, status, caller, payer, network, price_micros, settle_mode, settled_at, error_code, request_id, created_at, started_at, finished_at, expires_at)
     VALUES ($id, $skill, 1, $status, $caller, $payer, $network, $price, $mode, $settledAt, $code, $requestId, $createdAt, $startedAt, $finishedAt, $finishedAt)`,
  );
  const get = db.prepare<RawRow, [string]>("SELECT * FROM jobs WHERE id = ?");
  const markRunning = db.prepare<unknown, [string, string]>("UPDATE jobs SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'");
  // One statement: SQLite has one writer at a time, so the cap count and the claim cannot interleave with another claim.
  const claim = db.prepare<RawRow, Record<string, string | number>>(
    `UPDATE jobs SET status = 'running', started_at = $at, lease_owner = $worker, lease_expires_at = $until, attempts = attempts + 1
     WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND lease_owner IS NULL ORDER BY created_at, rowid LIMIT 1)
       AND (SELECT COUNT(*) FROM jobs WHERE status = 'running') < $cap
     RETURNING *`,
  );
  const renew = db.prepare<unknown, [number, string]>("UPDATE jobs SET lease_expires_at = ? WHERE lease_owner = ? AND status IN ('queued', 'running')");
  const releaseHold = db.prepare<unknown, [string, string]>(
    "UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ? AND status = 'queued' AND attempts = 0",
  );
  const expired = db.prepare<RawRow, [number]>(
    "SELECT * FROM jobs WHERE lease_owner IS NOT NULL AND lease_expires_at < ? AND status IN ('queued', 'running') ORDER BY lease_expires_at",
  );
  const requeue = db.prepare<unknown, [string, string, number]>(
    `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
     WHERE id = ? AND lease_owner = ? AND attempts = ? AND status IN ('queued', 'running')`,
  );
  const markSettled = db.prepare<unknown, [string, string | null, string]>("UPDATE jobs SET settled_at = ?, payment_response = ?, payment = NULL WHERE id = ?");
  const markMode = db.prepare<unknown, [string, string]>("UPDATE jobs SET settle_mode = ? WHERE id = ?");
  const complete = db.prepare(
    `UPDATE jobs SET status = 'completed', result = $result, input = NULL, payment = NULL, finished_at = $at, expires_at = $expires, lease_owner = NULL, lease_expires_at = NULL
     WHERE id = $id AND ($worker IS NULL OR (status = 'running' AND lease_owner = $worker AND attempts = $attempt))`,
  );
  const fail = db.prepare(
    `UPDATE jobs SET status = $status, error_code = $code, error_message = $message, input = NULL, payment = NULL, result = NULL,
       refund_state = CASE WHEN $refund IS NULL THEN refund_state ELSE 'due' END,
       refund_reason = COALESCE($refund, refund_reason),
       started_at = COALESCE(started_at, $at), finished_at = $at, expires_at = $expires, lease_owner = NULL, lease_expires_at = NULL
     WHERE id = $id AND ($worker IS NULL OR (status IN ('queued', 'running') AND lease_owner = $worker AND attempts = $attempt))`,
  );
  const discard = db.prepare<unknown, [string]>("DELETE FROM jobs WHERE id = ?");
  const discardSettlement = db.prepare<unknown, [string]>("DELETE FROM job_settlements WHERE job_id = ?");
  const beginSettlement = db.prepare(
    `INSERT INTO job_settlements (job_id, state, worker, attempt, started_at)
     SELECT id, 'pending', $worker, $attempt, $at FROM jobs
     WHERE id = $id AND lease_owner = $worker AND attempts = $attempt AND status IN ('queued', 'running')
     ON CONFLICT (job_id) DO NOTHING`,
  );
  const settlementOf = db.prepare<RawSettlement, [string]>("SELECT * FROM job_settlements WHERE job_id = ?");
  const finishSettlement = db.prepare(
    `UPDATE job_settlements SET state = $state, finished_at = $at, payment_response = $response, error_code = $code, error_message = $message
     WHERE job_id = $id AND state = 'pending'`,
  );
  const finishSettled = db.transaction((id: string, response: string | null, at: string) => {
    finishSettlement.run({ id, state: "settled", at, response, code: null, message: null });
    markSettled.run(at, response, id);
  });
  const byStatus = db.prepare<RawRow, [string]>("SELECT * FROM jobs WHERE status = ? ORDER BY created_at, rowid");
  const countStatus = db.prepare<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM jobs WHERE status = ?");
  const countActive = db.prepare<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running')");
  // Another process on the same file is seen within recentActiveMs; this store's own changes at once (forget after them).
  const active = keptCount(() => countActive.get()?.n ?? 0);
  const stats = db.prepare<
    { status: string; payer: string | null; network: string | null; settled_at: string | null; settle_mode: string; started_at: string | null; finished_at: string | null },
    [string]
  >("SELECT status, payer, network, settled_at, settle_mode, started_at, finished_at FROM jobs WHERE created_at >= ?");
  const refunds = db.prepare<RawRow, []>("SELECT * FROM jobs WHERE refund_state IS NOT NULL ORDER BY finished_at");
  const refundPaid = db.prepare<unknown, [string, string, string]>(
    "UPDATE jobs SET refund_state = 'paid', refund_note = ?, refund_paid_at = ?, refund_raw = NULL, refund_claim = NULL WHERE id = ? AND refund_state IN ('due', 'sending')",
  );
  const purgeResults = db.prepare<unknown, [string]>(
    "UPDATE jobs SET result = NULL, input = NULL, payment_response = NULL, expires_at = NULL WHERE expires_at IS NOT NULL AND expires_at <= ?",
  );
  // Refunds still due are kept however old: the operator owes them.
  const purgeRows = db.prepare<unknown, [string]>(
    `DELETE FROM jobs WHERE created_at < ? AND status IN ${finishedStatuses} AND (refund_state IS NULL OR refund_state = 'paid')`,
  );
  const purgeSettlements = db.prepare<unknown, []>("DELETE FROM job_settlements WHERE job_id NOT IN (SELECT id FROM jobs)");
  const fence = (lease: JobLease | undefined) => ({ worker: lease?.worker ?? null, attempt: lease?.attempt ?? null });

  return {
    shared: false,
    async insert(job) {
      active.forget();
      insert.run({
        id: job.id,
        skill: job.skill,
        sync: job.sync ? 1 : 0,
        input: JSON.stringify(job.input ?? null),
        caller: job.caller,
        payer: job.payer,
        network: job.network,
        price: job.priceMicros,
        payment: job.payment === null || job.payment === undefined ? null : JSON.stringify(job.payment),
        mode: job.settleMode,
        requestId: job.requestId,
        createdAt: job.createdAt.toISOString(),
        holder: job.hold?.worker ?? null,
        holdUntil: job.hold?.untilMs ?? null,
      });
      if (!job.hold) signal.notify();
    },
    async recordSyncCall(call) {
      insertSync.run({
        id: call.id,
        skill: call.skill,
        status: call.status,
        caller: call.caller,
        payer: call.payer,
        network: call.network,
        price: call.priceMicros,
        mode: call.settleMode,
        settledAt: call.settled ? call.finishedAt.toISOString() : null,
        code: call.errorCode,
        requestId: call.requestId,
        createdAt: call.createdAt.toISOString(),
        startedAt: call.startedAt.toISOString(),
        finishedAt: call.finishedAt.toISOString(),
      });
    },
    async get(id) {
      const row = get.get(id);
      return row ? toRow(row) : undefined;
    },
    markRunning: async (id, at) => markRunning.run(at.toISOString(), id).changes === 1,
    async claimNext({ worker, leaseMs, cap, now }) {
      const row = claim.get({ worker, at: now.toISOString(), until: now.getTime() + leaseMs, cap });
      return row ? toRow(row) : undefined;
    },
    renewLeases: async (worker, untilMs) => renew.run(untilMs, worker).changes,
    async releaseHold(id, worker) {
      const released = releaseHold.run(id, worker).changes === 1;
      if (released) signal.notify();
      return released;
    },
    expiredLeases: async (nowMs) => expired.all(nowMs).map(toRow),
    async requeue(id, lease) {
      const done = requeue.run(id, lease.worker, lease.attempt).changes === 1;
      if (done) signal.notify();
      return done;
    },
    async markSettled(id, paymentResponse, at) {
      markSettled.run(at.toISOString(), paymentResponse, id);
    },
    async markSettleMode(id, mode) {
      markMode.run(mode, id);
    },
    async complete(id, result, at, expiresAt, lease) {
      active.forget();
      return complete.run({ id, result: JSON.stringify(result ?? null), at: at.toISOString(), expires: expiresAt.toISOString(), ...fence(lease) }).changes === 1;
    },
    async fail(id, outcome, at, expiresAt, lease) {
      active.forget();
      return (
        fail.run({
          id,
          status: outcome.status,
          code: outcome.code,
          message: outcome.message,
          refund: outcome.refundReason,
          at: at.toISOString(),
          expires: expiresAt.toISOString(),
          ...fence(lease),
        }).changes === 1
      );
    },
    async discard(id) {
      active.forget();
      discard.run(id);
      discardSettlement.run(id);
    },
    async beginSettlement(id, lease, at) {
      if (beginSettlement.run({ id, worker: lease.worker, attempt: lease.attempt, at: at.toISOString() }).changes === 1) return { kind: "begun" };
      const existing = settlementOf.get(id);
      return existing ? { kind: "exists", settlement: toSettlement(existing) } : { kind: "lease_lost" };
    },
    async finishSettlement(id, outcome, at) {
      if (outcome.state === "settled") finishSettled(id, outcome.paymentResponse, at.toISOString());
      else finishSettlement.run({ id, state: "failed", at: at.toISOString(), response: null, code: outcome.code, message: outcome.message });
    },
    async settlementOf(id) {
      const row = settlementOf.get(id);
      return row ? toSettlement(row) : undefined;
    },
    listByStatus: async (status) => byStatus.all(status).map(toRow),
    countByStatus: async (status) => countStatus.get(status)?.n ?? 0,
    countActive: async () => countActive.get()?.n ?? 0,
    recentActiveCount: () => active.get(),
    statsRows: async (since) => stats.all(since.toISOString()).map(toStatsRow),
    listRefunds: async (state) => refundsIn(refunds.all().map(toRow), state),
    markRefundPaid: async (id, note) => refundPaid.run(note, new Date().toISOString(), id).changes === 1,
    ...createRefundLedger(db, { table: "jobs", settled: "settled_at IS NOT NULL", orderBy: "finished_at" }),
    async purge(now, rowsBefore) {
      const results = purgeResults.run(now.toISOString()).changes;
      const rows = purgeRows.run(rowsBefore.toISOString()).changes;
      if (rows) purgeSettlements.run();
      return { results, rows };
    },
    subscribe: async (listener) => signal.subscribe(listener),
  };
}
