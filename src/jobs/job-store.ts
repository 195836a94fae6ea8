/**
 * @module jobs/job-store — the jobs table: one row per accepted skill call (async jobs and sync
 * calls alike, so the trust figures count every sale). Inputs and payment snapshots live only
 * while a job can still run; results only until `expires_at`; the bare row (skill, status,
 * timestamps, payer) stays for the 7-day statistics and is then deleted.
 */
import { randomBytes } from "node:crypto";
import type { Database, Migration } from "../store/db.ts";
import type { JobStatus } from "./job-status.ts";
import { createRefundLedger, type RefundColumns, type RefundLedger, type RefundState } from "../refunds/ledger.ts";

export const jobMigrations: Migration[] = [
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
      price_micros INTEGER NOT NULL,
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
    // Automatic refunds (refunds/payer.ts): the claim taken before signing, the signed
    // transaction (id and bytes, recorded before it is sent), attempts and the last error.
    id: "0301_job_refund_payment",
    sql: `ALTER TABLE jobs ADD COLUMN refund_claim TEXT;
    ALTER TABLE jobs ADD COLUMN refund_claimed_at TEXT;
    ALTER TABLE jobs ADD COLUMN refund_tx TEXT;
    ALTER TABLE jobs ADD COLUMN refund_raw TEXT;
    ALTER TABLE jobs ADD COLUMN refund_attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN refund_error TEXT;
    ALTER TABLE jobs ADD COLUMN refund_paid_at TEXT;`,
  },
];

/**
 * When the payment is settled: `completion` (verify now, settle when the job succeeds),
 * `acceptance` (the authorization cannot outlive the job: settle before it runs, refund on our
 * failure) or `free` (payments off).
 */
export type SettleMode = "completion" | "acceptance" | "free";

export interface JobRow {
  readonly id: string;
  readonly skill: string;
  readonly sync: boolean;
  readonly status: JobStatus;
  readonly input: unknown;
  /** The stored result (JSON), present once completed and until expiry. */
  readonly result: unknown;
  readonly hasResult: boolean;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly caller: string;
  readonly payer: string | null;
  readonly network: string | null;
  readonly priceMicros: number;
  readonly payment: unknown;
  readonly settleMode: SettleMode;
  readonly settledAt: string | null;
  readonly paymentResponse: string | null;
  readonly refundState: RefundState | null;
  readonly refundReason: string | null;
  readonly refundNote: string | null;
  /** The refund transaction id, once one was signed (automatic refunds). */
  readonly refundTx: string | null;
  readonly refundAttempts: number;
  readonly refundError: string | null;
  readonly refundPaidAt: string | null;
  readonly requestId: string;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly expiresAt: string | null;
}

interface RawRow extends RefundColumns {
  id: string;
  skill: string;
  sync: number;
  status: string;
  input: string | null;
  result: string | null;
  error_code: string | null;
  error_message: string | null;
  caller: string;
  payer: string | null;
  network: string | null;
  price_micros: number;
  payment: string | null;
  settle_mode: string;
  settled_at: string | null;
  payment_response: string | null;
  request_id: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
}

export interface NewJob {
  readonly id: string;
  readonly skill: string;
  readonly sync: boolean;
  readonly input: unknown;
  readonly caller: string;
  readonly payer: string | null;
  readonly network: string | null;
  readonly priceMicros: number;
  readonly payment: unknown;
  readonly settleMode: SettleMode;
  readonly requestId: string;
  readonly createdAt: Date;
}

/** A finished sync call, recorded for the statistics only (no input, no result). */
export interface SyncCallRecord extends Omit<NewJob, "input" | "payment" | "sync"> {
  readonly status: "completed" | "failed" | "expired";
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly settled: boolean;
  readonly errorCode: string | null;
}

/** Fields needed by the statistics, for jobs created after a moment. */
export interface StatsRow {
  readonly status: JobStatus;
  readonly paid: boolean;
  readonly settled: boolean;
  readonly durationMs: number | null;
}

/** The jobs table; as a refund ledger (refunds/ledger.ts) its unpaid refunds are those of jobs whose payment was settled. */
export interface JobStore extends RefundLedger {
  insert(job: NewJob): void;
  recordSyncCall(call: SyncCallRecord): void;
  get(id: string): JobRow | undefined;
  /** queued → running; false when the job was not queued. */
  markRunning(id: string, at: Date): boolean;
  markSettled(id: string, paymentResponse: string | null, at: Date): void;
  /** Switches a job to settle-at-acceptance (its authorization would lapse before it could finish). */
  markSettleMode(id: string, mode: SettleMode): void;
  complete(id: string, result: unknown, at: Date, expiresAt: Date): void;
  fail(id: string, outcome: { status: "failed" | "expired"; code: string; message: string; refundReason: string | null }, at: Date, expiresAt: Date): void;
  /** Deletes a job that was never accepted (settlement at acceptance failed). */
  discard(id: string): void;
  listByStatus(status: JobStatus): JobRow[];
  countByStatus(status: JobStatus): number;
  /** Jobs queued or running (one query: /v1/capabilities asks on every call). */
  countActive(): number;
  statsRows(since: Date): StatsRow[];
  /** `unpaid` = due or sending. */
  listRefunds(state?: RefundState | "unpaid"): JobRow[];
  /** The operator paid it by hand: due (or sending, after checking its transaction) → paid. */
  markRefundPaid(id: string, note: string): boolean;
  /** Drops results and inputs past `expires_at`, and whole rows older than `rowsBefore`. */
  purge(now: Date, rowsBefore: Date): { results: number; rows: number };
}

/** 128 random bits: a job id is the only key to its result. */
export function newJobId(): string {
  return `job_${randomBytes(16).toString("hex")}`;
}

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function toRow(r: RawRow): JobRow {
  return {
    id: r.id,
    skill: r.skill,
    sync: r.sync === 1,
    status: r.status as JobStatus,
    input: parse(r.input),
    result: parse(r.result),
    hasResult: r.result !== null,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    caller: r.caller,
    payer: r.payer,
    network: r.network,
    priceMicros: r.price_micros,
    payment: parse(r.payment),
    settleMode: r.settle_mode as SettleMode,
    settledAt: r.settled_at,
    paymentResponse: r.payment_response,
    refundState: r.refund_state as JobRow["refundState"],
    refundReason: r.refund_reason,
    refundNote: r.refund_note,
    refundTx: r.refund_tx,
    refundAttempts: r.refund_attempts ?? 0,
    refundError: r.refund_error,
    refundPaidAt: r.refund_paid_at,
    requestId: r.request_id,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    expiresAt: r.expires_at,
  };
}

export function createJobStore(db: Database): JobStore {
  const insert = db.prepare(
    `INSERT INTO jobs (id, skill, sync, status, input, caller, payer, network, price_micros, payment, settle_mode, request_id, created_at)
     VALUES ($id, $skill, $sync, 'queued', $input, $caller, $payer, $network, $price, $payment, $mode, $requestId, $createdAt)`,
  );
  const insertSync = db.prepare(
    `INSERT INTO jobs (id, skill, sync, status, caller, payer, network, price_micros, settle_mode, settled_at, error_code, request_id, created_at, started_at, finished_at, expires_at)
     VALUES ($id, $skill, 1, $status, $caller, $payer, $network, $price, $mode, $settledAt, $code, $requestId, $createdAt, $startedAt, $finishedAt, $finishedAt)`,
  );
  const get = db.prepare<RawRow, [string]>("SELECT * FROM jobs WHERE id = ?");
  const markRunning = db.prepare<unknown, [string, string]>("UPDATE jobs SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'");
  const markSettled = db.prepare<unknown, [string, string | null, string]>("UPDATE jobs SET settled_at = ?, payment_response = ?, payment = NULL WHERE id = ?");
  const markMode = db.prepare<unknown, [string, string]>("UPDATE jobs SET settle_mode = ? WHERE id = ?");
  const complete = db.prepare<unknown, [string, string, string, string]>(
    "UPDATE jobs SET status = 'completed', result = ?, input = NULL, payment = NULL, finished_at = ?, expires_at = ? WHERE id = ?",
  );
  const fail = db.prepare(
    `UPDATE jobs SET status = $status, error_code = $code, error_message = $message, input = NULL, payment = NULL, result = NULL,
       refund_state = CASE WHEN $refund IS NULL THEN refund_state ELSE 'due' END,
       refund_reason = COALESCE($refund, refund_reason),
       started_at = COALESCE(started_at, $at), finished_at = $at, expires_at = $expires
     WHERE id = $id`,
  );
  const discard = db.prepare<unknown, [string]>("DELETE FROM jobs WHERE id = ?");
  const byStatus = db.prepare<RawRow, [string]>("SELECT * FROM jobs WHERE status = ? ORDER BY created_at, rowid");
  const countStatus = db.prepare<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM jobs WHERE status = ?");
  const countActive = db.prepare<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running')");
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
    "DELETE FROM jobs WHERE created_at < ? AND status IN ('completed', 'failed', 'expired') AND (refund_state IS NULL OR refund_state = 'paid')",
  );

  return {
    insert(job) {
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
      });
    },
    recordSyncCall(call) {
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
    get(id) {
      const row = get.get(id);
      return row ? toRow(row) : undefined;
    },
    markRunning: (id, at) => markRunning.run(at.toISOString(), id).changes === 1,
    markSettled(id, paymentResponse, at) {
      markSettled.run(at.toISOString(), paymentResponse, id);
    },
    markSettleMode(id, mode) {
      markMode.run(mode, id);
    },
    complete(id, result, at, expiresAt) {
      complete.run(JSON.stringify(result ?? null), at.toISOString(), expiresAt.toISOString(), id);
    },
    fail(id, outcome, at, expiresAt) {
      fail.run({
        id,
        status: outcome.status,
        code: outcome.code,
        message: outcome.message,
        refund: outcome.refundReason,
        at: at.toISOString(),
        expires: expiresAt.toISOString(),
      });
    },
    discard(id) {
      discard.run(id);
    },
    listByStatus: (status) => byStatus.all(status).map(toRow),
    countByStatus: (status) => countStatus.get(status)?.n ?? 0,
    countActive: () => countActive.get()?.n ?? 0,
    statsRows: (since) =>
      stats.all(since.toISOString()).map((r) => ({
        status: r.status as JobStatus,
        paid: r.settle_mode !== "free" && r.payer !== null,
        settled: r.settled_at !== null && r.settle_mode !== "free" && r.payer !== null && r.network !== null,
        durationMs: r.started_at && r.finished_at ? Date.parse(r.finished_at) - Date.parse(r.started_at) : null,
      })),
    listRefunds: (state) =>
      refunds
        .all()
        .map(toRow)
        .filter((r) => state === undefined || r.refundState === state || (state === "unpaid" && r.refundState !== "paid")),
    markRefundPaid: (id, note) => refundPaid.run(note, new Date().toISOString(), id).changes === 1,
    ...createRefundLedger(db, { table: "jobs", settled: "settled_at IS NOT NULL", orderBy: "finished_at" }),
    purge(now, rowsBefore) {
      const results = purgeResults.run(now.toISOString()).changes;
      const rows = purgeRows.run(rowsBefore.toISOString()).changes;
      return { results, rows };
    },
  };
}
