/**
 * @module jobs/worker — accepts async jobs, runs them through the queue with their timeout as an
 * abort signal, settles or releases their payment, and keeps the rows honest across restarts:
 * queued jobs run again, a job that was running when the process died is failed, not lost.
 *
 *   accept: insert queued → (acceptance mode) settle now, or discard on failure → enqueue
 *   run:    queued → running → run(skill) → settle (completion mode) → completed with result
 *           timeout → expired · error → failed · settlement failed → failed (result withheld)
 *           payment not settled → released; settled and our fault → refund due, paid at once
 *           when the network has a refund key (refunds/payer.ts), else left to the operator
 *           completed results are sealed (signed evidence) after settlement, as a paid call's are
 */
import { ApiError, errorCodes, toApiError } from "../errors.ts";
import type { AcceptedPayment, Payments, SettlementFacts } from "../paid-call/payments.ts";
import { type CallFacts, runWithTimeout } from "../paid-call/call.ts";
import { decodePaymentResponse, encodePaymentResponse } from "../x402/headers.ts";
import type { PaymentAnswer } from "../x402/payment-answer.ts";
import type { Logger } from "../log.ts";
import type { PluginContext } from "../plugin/context.ts";
import type { Registry, SkillEntry } from "../plugin/registry.ts";
import { type JobRow, type JobStore, newJobId, type SettleMode } from "./job-store.ts";
import { chooseSettleMode } from "./payment-timing.ts";
import type { RefundPayer } from "../refunds/payer.ts";
import { createJobQueue } from "./queue.ts";
import { computeStats7d, type Sla, slaOf, type Stats7d, statsWindowHours } from "./stats.ts";

export interface JobLimits {
  readonly maxConcurrentJobs: number;
  readonly maxQueuedJobs: number;
  readonly jobResultTtlHours: number;
  readonly jobTimeoutSec: number;
  readonly slaCapMs: number;
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
  /** The base URL the caller reached (signed evidence names it as the server). */
  readonly origin?: string;
}

export type AcceptOutcome =
  | { readonly kind: "accepted"; readonly job: JobRow }
  /** Settlement at acceptance failed: this answer replaces the 202 and no job exists. */
  | { readonly kind: "answer"; readonly answer: PaymentAnswer };

export interface JobWorker {
  /** Whether one more job may wait in the queue. */
  hasRoom(): boolean;
  /** Seconds a caller refused for a full queue should wait. */
  retryAfterSec(): number;
  accept(job: AcceptJob): Promise<AcceptOutcome>;
  /** Re-queues queued jobs and fails the ones a previous process left running. */
  recover(): { requeued: number; interrupted: number };
  /** Deletes expired results and rows older than the statistics window. */
  sweep(): void;
  activeJobs(): number;
  stats(): { stats_7d: Stats7d; sla: Sla };
  effectiveTimeoutMs(entry: SkillEntry): number;
  /** Starts nothing more and aborts running work; nothing is written after this. */
  stop(): void;
  /** Resolves when no job is running (tests). */
  idle(): Promise<void>;
}

/** spec §2.2: a JSON-encoded string when json_only (the skill's flag or the caller's field) is true. */
export function presentResult(entry: SkillEntry, input: unknown, result: unknown): unknown {
  const asked = typeof input === "object" && input !== null && (input as { json_only?: unknown }).json_only === true;
  return entry.definition.jsonOnly === true || asked ? JSON.stringify(result) : result;
}

/** The settlement a settled job's row records (network and transaction), for its signed evidence. */
function settlementOf(row: JobRow | undefined): SettlementFacts | undefined {
  if (!row || row.settledAt === null) return undefined;
  const response = row.paymentResponse === null ? undefined : decodePaymentResponse(row.paymentResponse);
  const settled = response?.ok ? response.value : undefined;
  return { payer: row.payer, network: settled?.network ?? row.network, transaction: settled?.transaction ?? null, paymentId: null };
}

/** Failures that are ours (a refund is due when the job was settled up front). */
function isOurFault(error: ApiError): boolean {
  return error.status >= 500;
}

export function createJobWorker(deps: JobWorkerDeps): JobWorker {
  const { jobs, registry, payments, log, limits } = deps;
  const now = deps.now ?? (() => new Date());
  const shutdown = new AbortController();
  let stopped = false;
  const idleWaiters: (() => void)[] = [];
  const queue = createJobQueue({ concurrency: limits.maxConcurrentJobs, run: (id) => runJob(id) });
  // Kept in memory only: a job recovered after a restart is sealed with the configured public URL.
  const origins = new Map<string, string>();

  const ttlMs = limits.jobResultTtlHours * 3_600_000;
  const expiry = (at: Date) => new Date(at.getTime() + ttlMs);
  const effectiveTimeoutMs = (entry: SkillEntry) => Math.min(entry.definition.timeoutMs, limits.jobTimeoutSec * 1000);

  /** Guards writes: after stop() the store may be closed. */
  const write = (what: string, fn: () => void) => {
    if (stopped) return;
    try {
      fn();
    } catch (error) {
      log.error("job store write failed", { what, error: (error as Error).message });
    }
  };

  const notifyIdle = () => {
    if (queue.running() === 0 && queue.waiting() === 0) for (const w of idleWaiters.splice(0)) w();
  };

  async function settleJob(row: JobRow, payment: AcceptedPayment): Promise<{ ok: true } | { ok: false; code: string; message: string; answer: PaymentAnswer }> {
    const outcome = await payment.settle({ requestId: row.requestId });
    if (outcome.kind === "settled") {
      write("settled", () => jobs.markSettled(row.id, outcome.settlement ? encodePaymentResponse(outcome.settlement) : null, now()));
      return { ok: true };
    }
    const answer = outcome.answer;
    return {
      ok: false,
      code: answer.kind === "refused" ? answer.code : "SETTLEMENT_FAILED",
      message: (answer.kind === "refused" ? answer.message : undefined) ?? errorCodes[answer.kind === "refused" ? answer.code : "SETTLEMENT_FAILED"].message,
      answer,
    };
  }

  function failJob(row: JobRow, error: ApiError, settled: boolean, payment: AcceptedPayment | undefined) {
    const expired = error.code === "OPERATION_TIMEOUT" || error.code === "JOB_TIMEOUT";
    const code = expired ? "JOB_TIMEOUT" : error.code;
    // Default messages promise "nothing was charged"; a job settled up front says what happened instead.
    const told = settled ? error.message.replace(/[;,]?\s*nothing was (run or )?charged\.?/i, ".").replace(/\.\.$/, ".") : error.message;
    const refundReason = settled && (expired || isOurFault(error)) ? `${code}: ${told}` : null;
    if (!settled) payment?.release();
    const charged = settled ? (refundReason ? "The payment was settled at acceptance; a refund is recorded." : "The payment was settled at acceptance.") : "Nothing was charged.";
    const message = expired ? `${row.skill} ran past its timeout and was aborted. ${charged}` : settled ? `${told} ${charged}` : error.message;
    write("fail", () => jobs.fail(row.id, { status: expired ? "expired" : "failed", code, message, refundReason }, now(), expiry(now())));
    if (!refundReason) return;
    log.warn("refund due", { job_id: row.id, skill: row.skill, payer: row.payer, reason: refundReason });
    if (!stopped && deps.refunds?.covers(row.network)) {
      deps.refunds.pay(row.id).catch((error: Error) => log.warn("refund payment failed", { job_id: row.id, error: error.message }));
    }
  }

  const entry = (row: JobRow) => registry.skill(row.skill);

  async function runJob(id: string): Promise<void> {
    try {
      if (stopped) return;
      const row = jobs.get(id);
      if (!row || row.status !== "queued") return;
      const skill = entry(row);
      // null once settled (the snapshot is dropped) or when free.
      const payment = row.payment === null ? undefined : payments.restore(row.payment);
      if (!skill) {
        failJob(row, new ApiError("UNKNOWN_SKILL", { message: `Skill ${row.skill} is no longer installed on this server.` }), row.settledAt !== null, payment);
        return;
      }
      const startedAt = now();
      if (!jobs.markRunning(id, startedAt)) return;
      let settled = row.settledAt !== null;
      let mode: SettleMode = row.settleMode;
      // The authorization may have aged while queued: settle before running rather than lose it.
      if (mode === "completion" && payment && chooseSettleMode(payment, startedAt, effectiveTimeoutMs(skill)) === "acceptance") {
        mode = "acceptance";
        write("mode", () => jobs.markSettleMode(id, "acceptance"));
      }
      if (mode === "acceptance" && !settled && payment) {
        const outcome = await settleJob(row, payment);
        if (!outcome.ok) {
          write("fail", () => jobs.fail(id, { status: "failed", code: outcome.code, message: outcome.message, refundReason: null }, now(), expiry(now())));
          return;
        }
        settled = true;
      }

      let result: unknown;
      try {
        result = await runWithTimeout(skill, row.input, shutdown.signal, (signal) => deps.contextFor(skill, signal, row.requestId, { payer: row.payer ?? undefined }), effectiveTimeoutMs(skill));
      } catch (error) {
        if (stopped) return;
        failJob(row, toApiError(error), settled, payment);
        return;
      }
      if (stopped) return;
      if (!settled && mode === "completion" && payment) {
        const outcome = await settleJob(row, payment);
        if (!outcome.ok) {
          // spec: the result is released only after settlement succeeded; it is dropped here.
          const refundReason = outcome.code === "SETTLEMENT_PENDING" ? "SETTLEMENT_PENDING: refund if the transaction landed (the result was withheld)" : null;
          write("fail", () => jobs.fail(id, { status: "failed", code: outcome.code, message: outcome.message, refundReason }, now(), expiry(now())));
          return;
        }
      }
      const shown = presentResult(skill, row.input, deps.seal ? await deps.seal(result, { origin: origins.get(id), payment: settlementOf(jobs.get(id)) }) : result);
      if (stopped) return;
      write("complete", () => jobs.complete(id, shown, now(), expiry(now())));
    } catch (error) {
      log.error("job run failed unexpectedly", { job_id: id, error: (error as Error).message });
      const row = jobs.get(id);
      if (row && !stopped && row.status === "running") failJob(row, toApiError(error), row.settledAt !== null, undefined);
    } finally {
      origins.delete(id);
      queueMicrotask(notifyIdle);
    }
  }

  return {
    hasRoom: () => queue.waiting() < limits.maxQueuedJobs,
    retryAfterSec() {
      const waves = Math.ceil((queue.waiting() + 1) / limits.maxConcurrentJobs);
      return Math.max(1, Math.min(60, waves * 5));
    },
    async accept({ id: givenId, entry: skill, value, payment, caller, priceMicros, requestId, origin }) {
      const at = now();
      const ahead = queue.waiting() + queue.running();
      const waves = Math.floor(ahead / limits.maxConcurrentJobs) + 1;
      const mode = chooseSettleMode(payment, at, waves * effectiveTimeoutMs(skill));
      const id = givenId ?? newJobId();
      jobs.insert({
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
      });
      if (mode === "acceptance") {
        const row = jobs.get(id)!;
        const outcome = await settleJob(row, payment);
        if (!outcome.ok) {
          jobs.discard(id);
          return { kind: "answer", answer: outcome.answer };
        }
      }
      if (origin !== undefined) origins.set(id, origin);
      // The row as accepted (queued): a replay of this answer must not depend on timing.
      const job = jobs.get(id)!;
      queue.enqueue(id);
      return { kind: "accepted", job };
    },
    recover() {
      let interrupted = 0;
      for (const row of jobs.listByStatus("running")) {
        const settled = row.settledAt !== null;
        let payment: AcceptedPayment | undefined;
        try {
          payment = row.payment === null ? undefined : payments.restore(row.payment);
        } catch {
          payment = undefined;
        }
        failJob(
          row,
          new ApiError("JOB_INTERRUPTED", { message: `The server stopped while ${row.skill} was running. ${settled ? "A refund is recorded." : "Nothing was charged."}` }),
          settled,
          payment,
        );
        interrupted++;
      }
      const queued = jobs.listByStatus("queued");
      for (const row of queued) queue.enqueue(row.id);
      if (interrupted || queued.length) log.info("jobs recovered", { requeued: queued.length, interrupted });
      return { requeued: queued.length, interrupted };
    },
    sweep() {
      const at = now();
      write("sweep", () => {
        const purged = jobs.purge(at, new Date(at.getTime() - (statsWindowHours + 24) * 3_600_000));
        if (purged.results || purged.rows) log.debug("jobs purged", purged);
      });
    },
    activeJobs: () => jobs.countActive(),
    stats() {
      const stats = computeStats7d(jobs.statsRows(new Date(now().getTime() - statsWindowHours * 3_600_000)), limits.slaCapMs);
      return { stats_7d: stats, sla: slaOf(stats, limits.jobTimeoutSec) };
    },
    effectiveTimeoutMs,
    stop() {
      stopped = true;
      queue.stop();
      shutdown.abort();
    },
    idle() {
      if (queue.running() === 0 && queue.waiting() === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
