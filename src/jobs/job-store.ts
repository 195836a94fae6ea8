/**
 * @module jobs/job-store — the jobs table: one row per accepted skill call (async jobs and sync
 * calls alike, so the trust figures count every sale). Inputs and payment snapshots live only
 * while a job can still run; results only until `expires_at`; the bare row (skill, status,
 * timestamps, payer) stays for the 7-day statistics and is then deleted.
 *
 * One asynchronous interface, two engines: SQLite (job-store-sqlite.ts, the default, one instance)
 * and PostgreSQL (job-store-pg.ts, several instances on one database). The queue lives in the table: a worker
 * claims the oldest claimable job under a lease (owner and attempt number, until an expiry it
 * renews), every write for a claimed job is fenced by that lease (it changes nothing once the lease
 * was lost), and a settlement row is written before the facilitator is called so a job run twice
 * (delivery is at-least-once) never settles twice.
 */
import { randomBytes } from "node:crypto";
import type { Migration } from "../store/db.ts";
import type { SettleResponse } from "../x402/messages.ts";
import { settlementOfText } from "./job-settlement.ts";
import type { JobStatus } from "./job-status.ts";
import type { RefundColumns, RefundLedger, RefundState } from "../refunds/ledger.ts";

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
  {
    // The queue in the table: who holds a job (worker id), until when (Unix ms), and how many
    // times it was claimed (the attempt number fences every write of the holder).
    id: "0302_job_leases",
    sql: `ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
    ALTER TABLE jobs ADD COLUMN lease_expires_at INTEGER;
    ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX jobs_leases ON jobs (lease_expires_at) WHERE lease_owner IS NOT NULL;`,
  },
  {
    // One row per job whose payment a worker began to settle, written before the facilitator is called.
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
  /** The settlement as stored (jobs/job-settlement.ts): its JSON, or the PAYMENT-RESPONSE header in rows before issue 39. */
  readonly paymentResponse: string | null;
  /** The settlement, typed (read from `paymentResponse`); null until settled, or when free. */
  readonly settlement: SettleResponse | null;
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
  /** The worker holding the job (claimed and running, or held while it is being accepted). */
  readonly leaseOwner: string | null;
  /** Unix ms the lease lapses at unless renewed. */
  readonly leaseExpiresAt: number | null;
  /** How many times a worker claimed it. */
  readonly attempts: number;
}

/** A worker's hold on one job; every write it makes for the job names it. */
export interface JobLease {
  readonly worker: string;
  readonly attempt: number;
}

export function leaseOf(row: JobRow): JobLease | undefined {
  return row.leaseOwner === null ? undefined : { worker: row.leaseOwner, attempt: row.attempts };
}

/** What a job's settlement row says. `pending`: the facilitator was (or was about to be) called and no answer was recorded. */
export interface JobSettlement {
  readonly state: "pending" | "settled" | "failed";
  readonly worker: string;
  readonly attempt: number;
  /** When the row was written (just before the facilitator was called). */
  readonly startedAt: string;
  readonly paymentResponse: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
}

/** `begun`: the row is written, call the facilitator now. `exists`: an earlier run wrote it. `lease_lost`: not the holder any more. */
export type SettlementStart = { readonly kind: "begun" } | { readonly kind: "exists"; readonly settlement: JobSettlement } | { readonly kind: "lease_lost" };

export type SettlementFinish =
  | { readonly state: "settled"; readonly paymentResponse: string | null }
  | { readonly state: "failed"; readonly code: string; readonly message: string };

export interface ClaimOptions {
  readonly worker: string;
  readonly leaseMs: number;
  /** Jobs running at once in the whole cluster (max_concurrent_jobs): nothing is claimed at the cap. */
  readonly cap: number;
  readonly now: Date;
}

export interface RawRow extends RefundColumns {
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
  lease_owner?: string | null;
  lease_expires_at?: number | null;
  attempts?: number;
}

export interface RawSettlement {
  state: string;
  worker: string;
  attempt: number;
  started_at: string;
  payment_response: string | null;
  error_code: string | null;
  error_message: string | null;
}

export function toSettlement(r: RawSettlement): JobSettlement {
  return {
    state: r.state as JobSettlement["state"],
    worker: r.worker,
    attempt: r.attempt,
    startedAt: r.started_at,
    paymentResponse: r.payment_response,
    errorCode: r.error_code,
    errorMessage: r.error_message,
  };
}

/** A job as submitted: its row's submission fields, at a moment. */
export interface NewJob extends Pick<JobRow, "id" | "skill" | "sync" | "input" | "caller" | "payer" | "network" | "priceMicros" | "payment" | "settleMode" | "requestId"> {
  readonly createdAt: Date;
  /** Inserted held by this worker (not claimable) until it calls `releaseHold`, or until `untilMs` when the reaper frees it. */
  readonly hold?: { readonly worker: string; readonly untilMs: number };
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

/** The jobs table and its queue, on either engine. Every write for a claimed job takes the holder's lease and changes nothing without it. */
export interface JobStore {
  /** True when several instances share the table (PostgreSQL): a running job may be another instance's. */
  readonly shared: boolean;
  insert(job: NewJob): Promise<void>;
  recordSyncCall(call: SyncCallRecord): Promise<void>;
  get(id: string): Promise<JobRow | undefined>;
  /** queued → running without a lease; false when the job was not queued. */
  markRunning(id: string, at: Date): Promise<boolean>;
  /** The oldest claimable queued job → running under a new lease; undefined when none, or when `cap` jobs already run. */
  claimNext(options: ClaimOptions): Promise<JobRow | undefined>;
  /** Extends every lease `worker` holds to `untilMs`; how many. */
  renewLeases(worker: string, untilMs: number): Promise<number>;
  /** A job inserted held by `worker` becomes claimable. */
  releaseHold(id: string, worker: string): Promise<boolean>;
  /** Jobs whose lease lapsed before `nowMs` (their holder is gone or stuck). */
  expiredLeases(nowMs: number): Promise<JobRow[]>;
  /** A job whose lease lapsed goes back to the queue, only under that very lease. */
  requeue(id: string, lease: JobLease): Promise<boolean>;
  markSettled(id: string, paymentResponse: string | null, at: Date): Promise<void>;
  /** Switches a job to settle-at-acceptance (its authorization would lapse before it could finish). */
  markSettleMode(id: string, mode: SettleMode): Promise<void>;
  /** With a lease: only while that lease holds (false otherwise). */
  complete(id: string, result: unknown, at: Date, expiresAt: Date, lease?: JobLease): Promise<boolean>;
  fail(
    id: string,
    outcome: { status: "failed" | "expired"; code: string; message: string; refundReason: string | null },
    at: Date,
    expiresAt: Date,
    lease?: JobLease,
  ): Promise<boolean>;
  /** Deletes a job that was never accepted (settlement at acceptance failed), with its settlement row. */
  discard(id: string): Promise<void>;
  /** Writes the settlement row (state pending) while `lease` holds the job, before the facilitator is called. */
  beginSettlement(id: string, lease: JobLease, at: Date): Promise<SettlementStart>;
  /** Records the facilitator's answer on the row; a settled one also marks the job settled (one step). */
  finishSettlement(id: string, outcome: SettlementFinish, at: Date): Promise<void>;
  settlementOf(id: string): Promise<JobSettlement | undefined>;
  listByStatus(status: JobStatus): Promise<JobRow[]>;
  countByStatus(status: JobStatus): Promise<number>;
  /** Jobs queued or running (one query). */
  countActive(): Promise<number>;
  /**
   * The same count for a figure shown on every free request (/v1/capabilities): this process's
   * own changes show at once, other processes' within `recentActiveMs`; answered synchronously
   * from the count kept since (no store round trip) whenever it can.
   */
  recentActiveCount(): number | Promise<number>;
  statsRows(since: Date): Promise<StatsRow[]>;
  /** `unpaid` = due or sending. */
  listRefunds(state?: RefundState | "unpaid"): Promise<JobRow[]>;
  /** The operator paid it by hand: due (or sending, after checking its transaction) → paid. */
  markRefundPaid(id: string, note: string): Promise<boolean>;
  /** Drops results and inputs past `expires_at`, and whole rows older than `rowsBefore`. */
  purge(now: Date, rowsBefore: Date): Promise<{ results: number; rows: number }>;
  /** Calls `listener` when a job may have become claimable (submitted, released after acceptance, requeued), from any instance sharing the table. */
  subscribe(listener: () => void): Promise<() => Promise<void>>;
}

/** The store's jobs facet on either engine: the queue and, as a refund ledger (refunds/ledger.ts), its unpaid refunds (those of jobs whose payment was settled). */
export type JobStoreWithRefunds = JobStore & RefundLedger;

/** How old the active-jobs figure of the free documents may be for changes made by other processes. */
export const recentActiveMs = 1000;

/**
 * A count kept for `recentActiveMs` (one read at a time however many ask), forgotten at once when
 * this process changes what it counts (`forget`, called after such a write). A synchronous `read`
 * (SQLite) is answered synchronously.
 */
export function keptCount(read: () => number | Promise<number>, now: () => number = () => performance.now()) {
  let kept: { count: number; at: number } | undefined;
  let pending: Promise<number> | undefined;
  let generation = 0;
  return {
    get(): number | Promise<number> {
      if (kept && now() - kept.at < recentActiveMs) return kept.count;
      if (pending) return pending;
      const asked = generation;
      const at = now();
      const result = read();
      if (!(result instanceof Promise)) {
        kept = { count: result, at };
        return result;
      }
      const reading = result.then((count) => {
        // A read that began before a write of ours may miss it: answer it, but do not keep it.
        if (asked === generation) kept = { count, at };
        return count;
      });
      pending = reading;
      const done = () => {
        if (pending === reading) pending = undefined;
      };
      reading.then(done, done);
      return reading;
    },
    forget(): void {
      generation++;
      kept = undefined;
      pending = undefined;
    },
  };
}

/** 128 random bits: a job id is the only key to its result. */
export function newJobId(): string {
  return `job_${randomBytes(16).toString("hex")}`;
}

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export function toRow(r: RawRow): JobRow {
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
    settlement: settlementOfText(r.payment_response),
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
    leaseOwner: r.lease_owner ?? null,
    leaseExpiresAt: r.lease_expires_at ?? null,
    attempts: r.attempts ?? 0,
  };
}

export function toStatsRow(r: {
  status: string;
  payer: string | null;
  network: string | null;
  settled_at: string | null;
  settle_mode: string;
  started_at: string | null;
  finished_at: string | null;
}): StatsRow {
  return {
    status: r.status as JobStatus,
    paid: r.settle_mode !== "free" && r.payer !== null,
    settled: r.settled_at !== null && r.settle_mode !== "free" && r.payer !== null && r.network !== null,
    durationMs: r.started_at && r.finished_at ? Date.parse(r.finished_at) - Date.parse(r.started_at) : null,
  };
}

export function refundsIn(rows: JobRow[], state: RefundState | "unpaid" | undefined): JobRow[] {
  return rows.filter((r) => state === undefined || r.refundState === state || (state === "unpaid" && r.refundState !== "paid"));
}
