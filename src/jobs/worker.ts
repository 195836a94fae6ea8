/**
 * @module jobs/worker — accepts async jobs, claims them from the store's queue (jobs/job-store.ts,
 * on SQLite or PostgreSQL) under a lease, runs them with their timeout as an abort signal, settles
 * or releases their payment, and keeps the rows honest across restarts and instances.
 *
 *   accept: insert held → (acceptance mode) settle now, or discard on failure → release the hold
 *   run:    claim (queued → running, leased) → run(skill) → settle (completion mode) → completed
 *           timeout → expired · error → failed · settlement failed → failed (result withheld)
 *           payment not settled → released; settled and our fault → refund due, paid at once
 *           when the network has a refund key (refunds/payer.ts), else left to the operator
 *
 * One instance (SQLite): a job left running by a previous process is failed at start, as before.
 * Several instances (PostgreSQL): each renews the leases it holds; a lease that lapsed (its
 * instance died or stalled) is requeued by any instance's reaper, or failed after `maxAttempts`
 * claims. Delivery is therefore at-least-once, and every write of a run is fenced by its lease.
 * Settlement is once per job: a settlement row is written before the facilitator is called. A
 * re-run that finds it `settled` runs the skill and completes without settling again; one that
 * finds it `pending` (the earlier run called the facilitator and no answer was recorded) does not
 * call the facilitator again nor run the skill: it fails the job with SETTLEMENT_PENDING and
 * records a refund due should the transaction have landed, as a settlement left pending does.
 *
 * The worker is plain functions over one explicit `WorkerState`.
 */
import { randomBytes } from "node:crypto";
import { ApiError, errorCodes, toApiError } from "../errors.ts";
import type { AcceptedPayment, Payments } from "../paid-call/payments.ts";
import { type CallFacts, runWithTimeout } from "../paid-call/call.ts";
import { encodePaymentResponse } from "../x402/headers.ts";
import { type PaymentAnswer, refusal } from "../x402/payment-answer.ts";
import type { Logger } from "../log.ts";
import type { PluginContext } from "../plugin/context.ts";
import type { Registry, SkillEntry } from "../plugin/registry.ts";
import { type JobLease, type JobRow, type JobStore, leaseOf, newJobId, type SettleMode } from "./job-store.ts";
import { chooseSettleMode } from "./payment-timing.ts";
import type { RefundPayer } from "../refunds/payer.ts";
import { computeStats7d, type Sla, slaOf, type Stats7d, statsWindowHours } from "./stats.ts";

export interface JobLimits {
  readonly maxConcurrentJobs: number;
  readonly maxQueuedJobs: number;
  readonly jobResultTtlHours: number;
  readonly jobTimeoutSec: number;
  readonly slaCapMs: number;
}

/** How the worker shares the queue; defaults suit one instance on SQLite and several on PostgreSQL. */
export interface QueueTiming {
  /** A claimed job's lease; renewed every third of it while the job runs (default 30 s). */
  readonly leaseMs?: number;
  /** How often to look for lapsed leases (default: every 10 s when the store is shared, never on SQLite). */
  readonly reapEveryMs?: number;
  /** Slow poll for claimable jobs besides the store's wake-ups (default: 2 s when shared, never on SQLite). */
  readonly pollEveryMs?: number;
  /** Claims of one job before a lapsed lease fails it instead of requeueing it (default 3). */
  readonly maxAttempts?: number;
}

export interface JobWorkerDeps {
  readonly jobs: JobStore;
  readonly registry: Registry;
  readonly payments: Payments;
  readonly log: Logger;
  readonly limits: JobLimits;
  readonly contextFor: (entry: SkillEntry, signal: AbortSignal, requestId: string, call?: CallFacts) => PluginContext;
  readonly now?: () => Date;
  /** Pays refunds due on networks with a refund key; without it refunds stay listed for the operator. */
  readonly refunds?: RefundPayer;
  readonly queue?: QueueTiming;
  /** This worker's name in leases (default: random). */
  readonly workerId?: string;
}

export interface AcceptJob {
  /** The job's id when the caller made it already (a claim was taken under it). */
  readonly id?: string;
  readonly entry: SkillEntry;
  readonly value: unknown;
  readonly payment: AcceptedPayment;
  readonly caller: string;
  readonly priceMicros: number;
  readonly requestId: string;
}

export type AcceptOutcome =
  | { readonly kind: "accepted"; readonly job: JobRow }
  /** Settlement at acceptance failed: this answer replaces the 202 and no job exists. */
  | { readonly kind: "answer"; readonly answer: PaymentAnswer };

export interface JobWorker {
  readonly id: string;
  /** Whether one more job may wait in the queue. */
  hasRoom(): Promise<boolean>;
  /** Seconds a caller refused for a full queue should wait. */
  retryAfterSec(): Promise<number>;
  accept(job: AcceptJob): Promise<AcceptOutcome>;
  /** Fails the jobs a previous process left running (one instance only), then starts claiming: wake-ups, poll, reaper. */
  start(): Promise<{ requeued: number; interrupted: number }>;
  /** Deletes expired results and rows older than the statistics window. */
  sweep(): Promise<void>;
  activeJobs(): Promise<number>;
  stats(): Promise<{ stats_7d: Stats7d; sla: Sla }>;
  effectiveTimeoutMs(entry: SkillEntry): number;
  /** Requeues (or fails) jobs whose lease lapsed; after renewing this worker's own leases. */
  reap(): Promise<number>;
  /** Starts nothing more and aborts running work; nothing is written after this (leases held lapse). */
  stop(): void;
  /** Resolves when no job is running here and none could be claimed (tests). */
  idle(): Promise<void>;
}

/** spec §2.2: a JSON-encoded string when json_only (the skill's flag or the caller's field) is true. */
export function presentResult(entry: SkillEntry, input: unknown, result: unknown): unknown {
  const asked = typeof input === "object" && input !== null && (input as { json_only?: unknown }).json_only === true;
  return entry.definition.jsonOnly === true || asked ? JSON.stringify(result) : result;
}

/** Failures that are ours (a refund is due when the job was settled up front). */
function isOurFault(error: ApiError): boolean {
  return error.status >= 500;
}

interface WorkerState {
  readonly deps: JobWorkerDeps;
  readonly jobs: JobStore;
  readonly id: string;
  readonly now: () => Date;
  readonly leaseMs: number;
  readonly maxAttempts: number;
  readonly shutdown: AbortController;
  stopped: boolean;
  /** Jobs this worker holds, by id. */
  readonly running: Map<string, JobLease>;
  pumping: boolean;
  pumpAgain: boolean;
  readonly idleWaiters: (() => void)[];
  readonly timers: ReturnType<typeof setInterval>[];
  unsubscribe: (() => Promise<void>) | undefined;
}

type SettleOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly answer: PaymentAnswer; readonly unknown: boolean }
  /** The lease was lost before anything was asked of the facilitator: this run stops, writing nothing. */
  | { readonly ok: false; readonly lost: true };

const unknownSettlement = "SETTLEMENT_PENDING: an earlier run began settling and its outcome is unknown; refund if the transaction landed (the result was withheld)";

export function createJobWorker(deps: JobWorkerDeps): JobWorker {
  const state: WorkerState = {
    deps,
    jobs: deps.jobs,
    id: deps.workerId ?? `w_${randomBytes(6).toString("hex")}`,
    now: deps.now ?? (() => new Date()),
    leaseMs: deps.queue?.leaseMs ?? 30_000,
    maxAttempts: deps.queue?.maxAttempts ?? 3,
    shutdown: new AbortController(),
    stopped: false,
    running: new Map(),
    pumping: false,
    pumpAgain: false,
    idleWaiters: [],
    timers: [],
    unsubscribe: undefined,
  };
  return {
    id: state.id,
    hasRoom: async () => (await state.jobs.countByStatus("queued")) < deps.limits.maxQueuedJobs,
    retryAfterSec: () => retryAfterSec(state),
    accept: (job) => acceptJob(state, job),
    start: () => startWorker(state),
    sweep: () => sweep(state),
    activeJobs: () => state.jobs.countActive(),
    stats: () => stats(state),
    effectiveTimeoutMs: (entry) => effectiveTimeoutMs(state, entry),
    reap: () => reap(state),
    stop: () => stopWorker(state),
    idle: () => idle(state),
  };
}

function effectiveTimeoutMs(state: WorkerState, entry: SkillEntry): number {
  return Math.min(entry.definition.timeoutMs, state.deps.limits.jobTimeoutSec * 1000);
}

function expiry(state: WorkerState, at: Date): Date {
  return new Date(at.getTime() + state.deps.limits.jobResultTtlHours * 3_600_000);
}

async function retryAfterSec(state: WorkerState): Promise<number> {
  const waves = Math.ceil(((await state.jobs.countByStatus("queued")) + 1) / state.deps.limits.maxConcurrentJobs);
  return Math.max(1, Math.min(60, waves * 5));
}

/** Guards writes: after stop() the store may be closed. */
async function write(state: WorkerState, what: string, fn: () => Promise<unknown>): Promise<void> {
  if (state.stopped) return;
  try {
    await fn();
  } catch (error) {
    state.deps.log.error("job store write failed", { what, error: (error as Error).message });
  }
}

function restorePayment(state: WorkerState, row: JobRow): AcceptedPayment | undefined {
  try {
    return row.payment === null ? undefined : state.deps.payments.restore(row.payment);
  } catch {
    return undefined;
  }
}

async function acceptJob(state: WorkerState, { id: givenId, entry: skill, value, payment, caller, priceMicros, requestId }: AcceptJob): Promise<AcceptOutcome> {
  const { jobs, deps } = state;
  const at = state.now();
  const ahead = await jobs.countActive();
  const waves = Math.floor(ahead / deps.limits.maxConcurrentJobs) + 1;
  const mode = chooseSettleMode(payment, at, waves * effectiveTimeoutMs(state, skill));
  const id = givenId ?? newJobId();
  // Held by this worker until accepted: no instance claims it before the answer is fixed.
  await jobs.insert({
    id,
    skill: skill.id,
    sync: false,
    input: value,
    caller,
    payer: payment.payer ?? null,
    network: payment.network ?? null,
    priceMicros,
    payment: payment.snapshot(),
    settleMode: mode,
    requestId,
    createdAt: at,
    hold: { worker: state.id, untilMs: at.getTime() + state.leaseMs },
  });
  if (mode === "acceptance") {
    const row = (await jobs.get(id))!;
    const outcome = await settleJob(state, row, payment, { worker: state.id, attempt: 0 });
    if (!outcome.ok) {
      await jobs.discard(id);
      if ("lost" in outcome) throw new Error(`job ${id} was taken from this worker while it was being accepted`);
      return { kind: "answer", answer: outcome.answer };
    }
  }
  // The row as accepted (queued): a replay of this answer must not depend on timing.
  const job = (await jobs.get(id))!;
  await jobs.releaseHold(id, state.id);
  void pump(state);
  return { kind: "accepted", job };
}

/** Settles through the job's settlement row: written before the facilitator is called, read back on a re-run. */
async function settleJob(state: WorkerState, row: JobRow, payment: AcceptedPayment, lease: JobLease): Promise<SettleOutcome> {
  const { jobs, now } = state;
  const start = await jobs.beginSettlement(row.id, lease, now());
  if (start.kind === "lease_lost") return { ok: false, lost: true };
  if (start.kind === "exists") return settlementOutcome(start.settlement);
  const outcome = await payment.settle({ requestId: row.requestId });
  if (outcome.kind === "settled") {
    await write(state, "settled", () => jobs.finishSettlement(row.id, { state: "settled", paymentResponse: outcome.settlement ? encodePaymentResponse(outcome.settlement) : null }, now()));
    return { ok: true };
  }
  const answer = outcome.answer;
  const code = answer.kind === "refused" ? answer.code : "SETTLEMENT_FAILED";
  const message = (answer.kind === "refused" ? answer.message : undefined) ?? errorCodes[code].message;
  // A pending settlement may still land: the row stays pending, so no later run settles again.
  if (code !== "SETTLEMENT_PENDING") await write(state, "settlement failed", () => jobs.finishSettlement(row.id, { state: "failed", code, message }, now()));
  return { ok: false, code, message, answer, unknown: code === "SETTLEMENT_PENDING" };
}

function settlementOutcome(settlement: { state: string; errorCode: string | null; errorMessage: string | null }): SettleOutcome {
  if (settlement.state === "settled") return { ok: true };
  if (settlement.state === "pending") {
    return { ok: false, code: "SETTLEMENT_PENDING", message: errorCodes.SETTLEMENT_PENDING.message, answer: refusal("SETTLEMENT_PENDING"), unknown: true };
  }
  const code = (settlement.errorCode ?? "SETTLEMENT_FAILED") as keyof typeof errorCodes;
  const known = code in errorCodes ? code : "SETTLEMENT_FAILED";
  return { ok: false, code: known, message: settlement.errorMessage ?? errorCodes[known].message, answer: refusal(known), unknown: false };
}

async function failJob(state: WorkerState, row: JobRow, error: ApiError, settled: boolean, payment: AcceptedPayment | undefined, lease: JobLease | undefined): Promise<void> {
  const { jobs, deps, now } = state;
  const expired = error.code === "OPERATION_TIMEOUT" || error.code === "JOB_TIMEOUT";
  const code = expired ? "JOB_TIMEOUT" : error.code;
  // Default messages promise "nothing was charged"; a job settled up front says what happened instead.
  const told = settled ? error.message.replace(/[;,]?\s*nothing was (run or )?charged\.?/i, ".").replace(/\.\.$/, ".") : error.message;
  const refundReason = settled && (expired || isOurFault(error)) ? `${code}: ${told}` : null;
  if (!settled) payment?.release();
  const charged = settled ? (refundReason ? "The payment was settled at acceptance; a refund is recorded." : "The payment was settled at acceptance.") : "Nothing was charged.";
  const message = expired ? `${row.skill} ran past its timeout and was aborted. ${charged}` : settled ? `${told} ${charged}` : error.message;
  await write(state, "fail", () => jobs.fail(row.id, { status: expired ? "expired" : "failed", code, message, refundReason }, now(), expiry(state, now()), lease));
  if (!refundReason) return;
  deps.log.warn("refund due", { job_id: row.id, skill: row.skill, payer: row.payer, reason: refundReason });
  if (!state.stopped && deps.refunds?.covers(row.network)) {
    deps.refunds.pay(row.id).catch((error: Error) => deps.log.warn("refund payment failed", { job_id: row.id, error: error.message }));
  }
}

/** Fails a run whose settlement is not settled; `refundReason` when it may have landed. */
async function failSettlement(state: WorkerState, row: JobRow, lease: JobLease, outcome: { code: string; message: string }, refundReason: string | null): Promise<void> {
  const { jobs, now } = state;
  await write(state, "fail", () => jobs.fail(row.id, { status: "failed", code: outcome.code, message: outcome.message, refundReason }, now(), expiry(state, now()), lease));
}

/** Claims jobs while this worker has room and the cluster is under its cap; each run claims again when it ends. */
async function pump(state: WorkerState): Promise<void> {
  if (state.pumping) {
    state.pumpAgain = true;
    return;
  }
  state.pumping = true;
  try {
    do {
      state.pumpAgain = false;
      while (!state.stopped && state.running.size < state.deps.limits.maxConcurrentJobs) {
        const row = await state.jobs.claimNext({ worker: state.id, leaseMs: state.leaseMs, cap: state.deps.limits.maxConcurrentJobs, now: state.now() });
        if (!row || state.stopped) break;
        const lease = leaseOf(row)!;
        state.running.set(row.id, lease);
        void runClaimed(state, row, lease).finally(() => {
          state.running.delete(row.id);
          void pump(state);
        });
      }
    } while (state.pumpAgain && !state.stopped);
  } catch (error) {
    if (!state.stopped) state.deps.log.error("job claim failed", { error: (error as Error).message });
  } finally {
    state.pumping = false;
    notifyIdle(state);
  }
}

function notifyIdle(state: WorkerState): void {
  if (state.running.size === 0 && !state.pumping) for (const waiter of state.idleWaiters.splice(0)) waiter();
}

function idle(state: WorkerState): Promise<void> {
  if (state.running.size === 0 && !state.pumping) return Promise.resolve();
  return new Promise((resolve) => state.idleWaiters.push(resolve));
}

async function runClaimed(state: WorkerState, row: JobRow, lease: JobLease): Promise<void> {
  const { jobs, deps, now } = state;
  try {
    if (state.stopped) return;
    const skill = deps.registry.skill(row.skill);
    // null once settled (the snapshot is dropped) or when free.
    const payment = row.payment === null ? undefined : deps.payments.restore(row.payment);
    if (!skill) {
      await failJob(state, row, new ApiError("UNKNOWN_SKILL", { message: `Skill ${row.skill} is no longer installed on this server.` }), row.settledAt !== null, payment, lease);
      return;
    }
    let settled = row.settledAt !== null;
    // A re-run: an earlier run may have begun settling.
    const earlier = !settled && payment ? await jobs.settlementOf(row.id) : undefined;
    if (earlier) {
      const outcome = settlementOutcome(earlier);
      if (!outcome.ok) {
        if ("lost" in outcome) return;
        if (!outcome.unknown) payment?.release();
        await failSettlement(state, row, lease, outcome, outcome.unknown ? unknownSettlement : null);
        return;
      }
      settled = true;
    }
    const startedAt = now();
    let mode: SettleMode = row.settleMode;
    // The authorization may have aged while queued: settle before running rather than lose it.
    if (mode === "completion" && !settled && payment && chooseSettleMode(payment, startedAt, effectiveTimeoutMs(state, skill)) === "acceptance") {
      mode = "acceptance";
      await write(state, "mode", () => jobs.markSettleMode(row.id, "acceptance"));
    }
    if (mode === "acceptance" && !settled && payment) {
      const outcome = await settleJob(state, row, payment, lease);
      if (!outcome.ok) {
        if ("lost" in outcome) return;
        await failSettlement(state, row, lease, outcome, null);
        return;
      }
      settled = true;
    }

    let result: unknown;
    try {
      result = await runWithTimeout(skill, row.input, state.shutdown.signal, (signal) => deps.contextFor(skill, signal, row.requestId, { payer: row.payer ?? undefined }), effectiveTimeoutMs(state, skill));
    } catch (error) {
      if (state.stopped) return;
      await failJob(state, row, toApiError(error), settled, payment, lease);
      return;
    }
    if (state.stopped) return;
    if (!settled && mode === "completion" && payment) {
      const outcome = await settleJob(state, row, payment, lease);
      if (!outcome.ok) {
        if ("lost" in outcome) return;
        // spec: the result is released only after settlement succeeded; it is dropped here.
        const refundReason = outcome.code === "SETTLEMENT_PENDING" ? "SETTLEMENT_PENDING: refund if the transaction landed (the result was withheld)" : null;
        await failSettlement(state, row, lease, outcome, refundReason);
        return;
      }
    }
    const shown = presentResult(skill, row.input, result);
    await write(state, "complete", () => jobs.complete(row.id, shown, now(), expiry(state, now()), lease));
  } catch (error) {
    deps.log.error("job run failed unexpectedly", { job_id: row.id, error: (error as Error).message });
    if (state.stopped) return;
    const current = await jobs.get(row.id).catch(() => undefined);
    if (current && current.status === "running") await failJob(state, current, toApiError(error), current.settledAt !== null, undefined, lease);
  }
}

async function startWorker(state: WorkerState): Promise<{ requeued: number; interrupted: number }> {
  const { jobs, deps } = state;
  const interrupted = jobs.shared ? 0 : await failInterrupted(state);
  const requeued = await jobs.countByStatus("queued");
  if (interrupted || requeued) deps.log.info("jobs recovered", { requeued, interrupted });
  if (state.stopped) return { requeued, interrupted };
  state.unsubscribe = await jobs.subscribe(() => void pump(state));
  const every = (ms: number, fn: () => Promise<unknown>) => {
    if (ms <= 0) return;
    const timer = setInterval(() => void fn().catch((error: Error) => deps.log.warn("job queue upkeep failed", { error: error.message })), ms);
    timer.unref?.();
    state.timers.push(timer);
  };
  every(deps.queue?.pollEveryMs ?? (jobs.shared ? 2_000 : 0), () => pump(state));
  every(deps.queue?.reapEveryMs ?? (jobs.shared ? 10_000 : 0), () => reap(state));
  // Leases are renewed while jobs run, whether or not this worker reaps.
  every(jobs.shared || deps.queue?.reapEveryMs ? Math.max(1, Math.floor(state.leaseMs / 3)) : 0, () => renewLeases(state));
  await pump(state);
  return { requeued, interrupted };
}

/** One instance: a job running when the previous process stopped is failed, not lost (a refund recorded when settled). */
async function failInterrupted(state: WorkerState): Promise<number> {
  let interrupted = 0;
  for (const row of await state.jobs.listByStatus("running")) {
    const settlement = row.settledAt === null ? await state.jobs.settlementOf(row.id) : undefined;
    const settled = row.settledAt !== null || settlement?.state === "settled";
    if (settlement?.state === "pending") {
      await write(state, "fail", () =>
        state.jobs.fail(
          row.id,
          { status: "failed", code: "JOB_INTERRUPTED", message: `The server stopped while ${row.skill} was settling; a refund is recorded should the payment have landed.`, refundReason: unknownSettlement },
          state.now(),
          expiry(state, state.now()),
        ),
      );
    } else {
      const message = `The server stopped while ${row.skill} was running. ${settled ? "A refund is recorded." : "Nothing was charged."}`;
      await failJob(state, row, new ApiError("JOB_INTERRUPTED", { message }), settled, restorePayment(state, row), undefined);
    }
    interrupted++;
  }
  return interrupted;
}

async function renewLeases(state: WorkerState): Promise<void> {
  if (state.stopped) return;
  await state.jobs.renewLeases(state.id, state.now().getTime() + state.leaseMs);
}

/** Lapsed leases: a held job whose acceptor died is discarded unless it began settling; a claimed one is requeued, or failed after maxAttempts. */
async function reap(state: WorkerState): Promise<number> {
  const { jobs } = state;
  if (state.stopped) return 0;
  await renewLeases(state);
  let reaped = 0;
  for (const row of await jobs.expiredLeases(state.now().getTime())) {
    if (state.stopped) break;
    const lease = leaseOf(row)!;
    if (row.status === "queued" && (await jobs.settlementOf(row.id)) === undefined) {
      await jobs.discard(row.id);
    } else if (row.attempts >= state.maxAttempts) {
      const settled = row.settledAt !== null;
      const message = `${row.skill} was interrupted ${row.attempts} times (its worker stopped). ${settled ? "A refund is recorded." : "Nothing was charged."}`;
      await failJob(state, row, new ApiError("JOB_INTERRUPTED", { message }), settled, restorePayment(state, row), lease);
    } else if (!(await jobs.requeue(row.id, lease))) {
      continue;
    }
    reaped++;
  }
  if (reaped) state.deps.log.info("lapsed job leases reaped", { reaped });
  return reaped;
}

async function sweep(state: WorkerState): Promise<void> {
  const at = state.now();
  await write(state, "sweep", async () => {
    const purged = await state.jobs.purge(at, new Date(at.getTime() - (statsWindowHours + 24) * 3_600_000));
    if (purged.results || purged.rows) state.deps.log.debug("jobs purged", purged);
  });
}

async function stats(state: WorkerState): Promise<{ stats_7d: Stats7d; sla: Sla }> {
  const { limits } = state.deps;
  const figures = computeStats7d(await state.jobs.statsRows(new Date(state.now().getTime() - statsWindowHours * 3_600_000)), limits.slaCapMs);
  return { stats_7d: figures, sla: slaOf(figures, limits.jobTimeoutSec) };
}

function stopWorker(state: WorkerState): void {
  state.stopped = true;
  for (const timer of state.timers.splice(0)) clearInterval(timer);
  const unsubscribe = state.unsubscribe;
  state.unsubscribe = undefined;
  void unsubscribe?.().catch(() => {});
  state.shutdown.abort();
  notifyIdle(state);
}
