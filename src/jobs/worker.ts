/**
 * @module jobs/worker — the job queue sales reach through their port (paid-call/job-queue.ts, wired
 * by app.ts): accepts async jobs, records sync calls, claims them from the store's queue (jobs/job-store.ts,
 * on SQLite or PostgreSQL) under a lease, runs them with their timeout as an abort signal, settles
 * or releases their payment, and keeps the rows honest across restarts and instances.
 *
 *   accept: insert held → (acceptance mode) settle now, or discard on failure → release the hold
 *   run:    claim (queued → running, leased) → run(skill) → settle (completion mode) → completed
 *           timeout → expired · error → failed · settlement failed → failed (result withheld)
 *           payment not settled → released; settled and our fault → refund due, paid at once
 *           when the network has a refund key (refunds/payer.ts), else left to the operator
 *           completed results are sealed (signed evidence) after settlement, as a paid call's are
 *
 * One instance (SQLite): a job left running by a previous process is failed at start, as before.
 * Several instances (PostgreSQL): each renews the leases it holds; a lease that lapsed (its
 * instance died or stalled) is requeued by any instance's reaper, or failed after `maxAttempts`
 * claims. Delivery is therefore at-least-once, and every write of a run is fenced by its lease.
 * Settlement is once per job: a settlement row is written before the facilitator is called. A
 * re-run that finds it `settled` runs the skill and completes without settling again; one that
 * finds it `pending` (the earlier run called the facilitator and no answer was recorded) waits,
 * holding its lease, until `settleGraceMs` after that call began for the answer to be recorded (the
 * earlier run may only have stalled); still pending then, it neither calls the facilitator again nor
 * runs the skill: it fails the job with SETTLEMENT_PENDING and records a refund due should the
 * transaction have landed, as a settlement left pending is treated.
 *
 * The worker is plain functions over one explicit `WorkerState` (worker-state.ts); how a run ends
 * is job-outcomes.ts, lease upkeep job-upkeep.ts.
 */
import { randomBytes } from "node:crypto";
import { ApiError, toApiError } from "../errors.ts";
import type { AcceptedPayment, SettlementFacts } from "../paid-call/payments.ts";
import { receiptNamesOf } from "../x402/offer-receipt.ts";
import { runWithTimeout } from "../paid-call/call.ts";
import type { JobQueue, QueueAnswer, QueuedSale } from "../paid-call/job-queue.ts";
import { presentResult } from "../paid-call/sell.ts";
import type { PaymentAnswer } from "../x402/payment-answer.ts";
import type { SkillEntry } from "../plugin/registry.ts";
import { type JobLease, type JobRow, leaseOf, newJobId, type SettleMode } from "./job-store.ts";
import { awaitEarlierSettlement, failJob, failSettlement, settleJob, settlementOutcome, unknownSettlement } from "./job-outcomes.ts";
import { failInterrupted, reap, renewLeases } from "./job-upkeep.ts";
import { chooseSettleMode } from "./payment-timing.ts";
import { computeStats7d, type Sla, slaOf, type Stats7d, statsWindowHours } from "./stats.ts";
import { effectiveTimeoutMs, expiry, type JobWorkerDeps, type WorkerState, write } from "./worker-state.ts";

export type { JobLimits, JobWorkerDeps, QueueTiming } from "./worker-state.ts";

/** The queue a sale reaches through the port (accept, room, sync records) and the worker that runs it. */
export interface JobWorker extends JobQueue<JobRow> {
  readonly id: string;
  /** Fails the jobs a previous process left running (one instance only), then starts claiming: wake-ups, poll, reaper. */
  start(): Promise<{ requeued: number; interrupted: number }>;
  /** Deletes expired results and rows older than the statistics window. */
  sweep(): Promise<void>;
  stats(): Promise<{ stats_7d: Stats7d; sla: Sla }>;
  /** Requeues (or fails) jobs whose lease lapsed; after renewing this worker's own leases. */
  reap(): Promise<number>;
  /** Starts nothing more and aborts running work; nothing is written after this (leases held lapse). */
  stop(): void;
  /** Resolves when no job is running here and none could be claimed (tests). */
  idle(): Promise<void>;
}

export function createJobWorker(deps: JobWorkerDeps): JobWorker {
  const state: WorkerState = {
    deps,
    jobs: deps.jobs,
    id: deps.workerId ?? `w_${randomBytes(6).toString("hex")}`,
    now: deps.now ?? (() => new Date()),
    leaseMs: deps.queue?.leaseMs ?? 30_000,
    maxAttempts: deps.queue?.maxAttempts ?? 3,
    settleGraceMs: deps.queue?.settleGraceMs ?? 60_000,
    shutdown: new AbortController(),
    stopped: false,
    running: new Map(),
    pumping: false,
    pumpAgain: false,
    idleWaiters: [],
    timers: [],
    unsubscribe: undefined,
    origins: new Map(),
  };
  return {
    id: state.id,
    hasRoom: async () => (await state.jobs.countByStatus("queued")) < deps.limits.maxQueuedJobs,
    retryAfterSec: () => retryAfterSec(state),
    accept: (job) => acceptJob(state, job),
    newJobId,
    recordSync: (sale) => state.jobs.recordSyncCall({ id: newJobId(), ...sale }),
    start: () => startWorker(state),
    sweep: () => sweep(state),
    stats: () => stats(state),
    effectiveTimeoutMs: (entry) => effectiveTimeoutMs(state, entry),
    reap: () => reap(state),
    stop: () => stopWorker(state),
    idle: () => idle(state),
  };
}

async function retryAfterSec(state: WorkerState): Promise<number> {
  const waves = Math.ceil(((await state.jobs.countByStatus("queued")) + 1) / state.deps.limits.maxConcurrentJobs);
  return Math.max(1, Math.min(60, waves * 5));
}

async function acceptJob(state: WorkerState, { id: givenId, entry: skill, value, payment, caller, priceMicros, requestId, origin }: QueuedSale): Promise<QueueAnswer<JobRow>> {
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
  if (origin !== undefined) state.origins.set(id, origin);
  await jobs.releaseHold(id, state.id);
  void pump(state);
  return { kind: "accepted", job };
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
      const outcome = settlementOutcome(earlier.state === "pending" ? await awaitEarlierSettlement(state, row.id, earlier) : earlier);
      if (state.stopped) return;
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
      result = await runWithTimeout(skill, row.input, state.shutdown.signal, { contextFor: deps.contextFor, requestId: row.requestId, facts: { payer: row.payer ?? undefined } }, effectiveTimeoutMs(state, skill));
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
    const sealed = deps.seal ? await deps.seal(result, { origin: state.origins.get(row.id), payment: settlementOf(await jobs.get(row.id)) }) : result;
    if (state.stopped) return;
    const shown = presentResult(skill, row.input, sealed);
    await write(state, "complete", () => jobs.complete(row.id, shown, now(), expiry(state, now()), lease));
  } catch (error) {
    deps.log.error("job run failed unexpectedly", { job_id: row.id, error: (error as Error).message });
    if (state.stopped) return;
    const current = await jobs.get(row.id).catch(() => undefined);
    if (current && current.status === "running") await failJob(state, current, toApiError(error), current.settledAt !== null, undefined, lease);
  } finally {
    state.origins.delete(row.id);
  }
}

/** The settlement a settled job's row records (network and transaction, and what its signed receipt names), for its signed evidence. */
function settlementOf(row: JobRow | undefined): SettlementFacts | undefined {
  if (!row || row.settledAt === null) return undefined;
  const settled = row.settlement ?? undefined;
  return { payer: row.payer, network: settled?.network ?? row.network, transaction: settled?.transaction ?? null, paymentId: null, ...receiptNamesOf(settled) };
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
  // A poll that finds a pump under way is already served by it; asking it to go round again would keep a
  // claim slower than the poll interval (a loaded database) looping, and start() would never return.
  every(deps.queue?.pollEveryMs ?? (jobs.shared ? 2_000 : 0), async () => {
    if (!state.pumping) await pump(state);
  });
  every(deps.queue?.reapEveryMs ?? (jobs.shared ? 10_000 : 0), () => reap(state));
  // Leases are renewed while jobs run, whether or not this worker reaps.
  every(jobs.shared || deps.queue?.reapEveryMs ? Math.max(1, Math.floor(state.leaseMs / 3)) : 0, () => renewLeases(state));
  await pump(state);
  return { requeued, interrupted };
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
