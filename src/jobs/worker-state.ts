/**
 * @module jobs/worker-state — what the job worker's steps share: its dependencies, limits and queue
 * timing, and the one explicit state they read and change (no closure holds it).
 */
import type { AcceptedPayment, Payments, SettlementFacts } from "../paid-call/payments.ts";
import type { CallFacts } from "../paid-call/call.ts";
import type { Logger } from "../log.ts";
import type { PluginContext } from "../plugin/context.ts";
import type { Registry, SkillEntry } from "../plugin/registry.ts";
import type { RefundPayer } from "../refunds/payer.ts";
import type { JobLease, JobRow, JobStore } from "./job-store.ts";

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
  /**
   * How long after an earlier run began settling a re-run waits for that run to record the
   * facilitator's answer before taking the outcome as unknown (default 60 s).
   */
  readonly settleGraceMs?: number;
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
  /** Signs a completed job's evidence results once settled; `origin` is the base URL the caller reached, when still known. */
  readonly seal?: (result: unknown, job: { readonly origin: string | undefined; readonly payment: SettlementFacts | undefined }) => Promise<unknown>;
  readonly queue?: QueueTiming;
  /** This worker's name in leases (default: random). */
  readonly workerId?: string;
}

export interface WorkerState {
  readonly deps: JobWorkerDeps;
  readonly jobs: JobStore;
  readonly id: string;
  readonly now: () => Date;
  readonly leaseMs: number;
  readonly maxAttempts: number;
  readonly settleGraceMs: number;
  readonly shutdown: AbortController;
  stopped: boolean;
  /** Jobs this worker holds, by id. */
  readonly running: Map<string, JobLease>;
  pumping: boolean;
  pumpAgain: boolean;
  readonly idleWaiters: (() => void)[];
  readonly timers: ReturnType<typeof setInterval>[];
  unsubscribe: (() => Promise<void>) | undefined;
  /** The base URL each job's caller reached, kept in memory only: a job run elsewhere or after a restart is sealed with the public URL. */
  readonly origins: Map<string, string>;
}

export function effectiveTimeoutMs(state: WorkerState, entry: SkillEntry): number {
  return Math.min(entry.definition.timeoutMs, state.deps.limits.jobTimeoutSec * 1000);
}

export function expiry(state: WorkerState, at: Date): Date {
  return new Date(at.getTime() + state.deps.limits.jobResultTtlHours * 3_600_000);
}

/** Guards writes: after stop() the store may be closed. */
export async function write(state: WorkerState, what: string, fn: () => Promise<unknown>): Promise<void> {
  if (state.stopped) return;
  await record(state, what, fn);
}

/** A write of a fact learnt from outside (the facilitator's answer): made even after stop(), logged if the store is closed by then. */
export async function record(state: WorkerState, what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    state.deps.log.error("job store write failed", { what, error: (error as Error).message });
  }
}

export function restorePayment(state: WorkerState, row: JobRow): AcceptedPayment | undefined {
  try {
    return row.payment === null ? undefined : state.deps.payments.restore(row.payment);
  } catch {
    return undefined;
  }
}
