/**
 * @module jobs/setup — wires the job worker into a running app: job and idempotency stores,
 * the worker (recovered from the last run), the routes, the refund payer of jobs, and a periodic
 * sweep of expired results and keys. Stops with the store.
 */
import type { Config } from "../config.ts";
import type { OperationDeps } from "../http/operation.ts";
import type { SealEvidence } from "../paid-call/call.ts";
import type { Payments } from "../paid-call/payments.ts";
import type { Logger } from "../log.ts";
import type { Registry, SkillEntry } from "../plugin/registry.ts";
import type { ModuleStore } from "../module/define.ts";
import type { RefundSender } from "../x402/refund.ts";
import { createRefundPayer, type RefundPayer } from "../refunds/payer.ts";
import type { JobRow } from "./job-store.ts";
import { createJobRoutes, findVisibleJob, type JobRoutes, jobView } from "./routes.ts";
import type { Sla, Stats7d } from "./stats.ts";
import { createJobWorker, type JobWorker, type JobWorkerDeps } from "./worker.ts";

export type JobConfig = Pick<
  Config,
  "maxConcurrentJobs" | "maxQueuedJobs" | "rateLimitPerMin" | "jobResultTtlHours" | "idempotencyTtlHours" | "maxPromptChars" | "jobTimeoutSec" | "slaCapMs"
> &
  Partial<Pick<Config, "publicUrl" | "jobLeaseSec">> &
  // The x402 networks' refund keys, when payments are on (absent: refunds are left to the operator).
  Partial<Pick<Config, "payments" | "x402">>;

/** Which live job figures a free document reads (loaded from the store before it is rendered). */
export interface JobFigureNeeds {
  readonly active?: boolean;
  readonly stats?: boolean;
}

/** Loads the figures a document reads (synchronously when the store can answer so); `none` serves one that reads only the limits. */
export interface JobFigures {
  (needs: JobFigureNeeds): JobsInfo | Promise<JobsInfo>;
  readonly none: JobsInfo;
}

/** What the free documents show about jobs (limits, live load, the 7-day figures), loaded for one rendering. */
export interface JobsInfo {
  readonly limits: {
    readonly max_concurrent_jobs: number;
    readonly max_queued_jobs: number;
    readonly rate_limit_per_min: number;
    readonly max_prompt_chars: number;
    readonly job_timeout_sec: number;
    readonly job_result_ttl_hours: number;
    readonly idempotency_ttl_hours: number;
    readonly sla_cap_ms: number;
  };
  activeJobs(): number;
  stats(): { stats_7d: Stats7d; sla: Sla };
}

export interface JobService {
  readonly routes: JobRoutes;
  readonly worker: JobWorker;
  /** Present when at least one network has a refund key. */
  readonly refunds: RefundPayer | undefined;
  /** The limits, and the live figures a document declared it reads. */
  readonly info: { readonly limits: JobsInfo["limits"]; readonly figures: JobFigures };
  /** A job's public view as GET /v1/jobs/:id shows it; undefined when not visible (unknown, a sync call, expired). */
  status(id: string): Promise<{ readonly row: JobRow; readonly view: Record<string, unknown> } | undefined>;
}

const sweepEveryMs = 60_000;

/** A job's results are signed as a paid call's are (the server named from configuration, never the caller's Host). */
function sealJob(sealEvidence: SealEvidence): NonNullable<JobWorkerDeps["seal"]> {
  return (result, job) => sealEvidence(result, { payment: job.payment });
}

/** What the job service needs of the database (its own tables, jobs/tables.ts, and the store's life). */
export type JobServiceStore = Pick<ModuleStore, "engine" | "onClose" | "jobs" | "idempotencyKeys">;

export function createJobService(options: {
  readonly config: JobConfig;
  readonly registry: Registry;
  readonly store: JobServiceStore;
  readonly payments: Payments;
  readonly log: Logger;
  readonly now: () => Date;
  /** How the job routes sell a call (built with the app, which wires this service's worker in as its queue). */
  readonly operation: OperationDeps<JobRow>;
  /** The evidence module's seal: a job's evidence result is signed when it completes (absent: unsigned). */
  readonly seal?: SealEvidence;
  /** Refund senders of the networks with a refund key (x402/refund-senders.ts loadRefundSenders); none: no refunds paid. */
  readonly refundSenders?: ReadonlyMap<string, RefundSender>;
}): JobService {
  const { config, registry, store, payments, log, now, operation } = options;
  const idempotency = store.idempotencyKeys(config.idempotencyTtlHours * 3_600_000);
  const senders = options.refundSenders ?? new Map<string, RefundSender>();
  const refunds =
    senders.size > 0
      ? createRefundPayer({
          ledger: store.jobs,
          senders,
          log: log.child({ component: "refunds" }),
          confirmationTimeoutMs: config.x402?.confirmationTimeoutMs ?? 60_000,
          now,
        })
      : undefined;
  const worker = createJobWorker({
    jobs: store.jobs,
    registry,
    payments,
    log: log.child({ component: "jobs" }),
    limits: config,
    contextFor: operation.contextFor,
    now,
    ...(refunds ? { refunds } : {}),
    ...(options.seal ? { seal: sealJob(options.seal) } : {}),
    ...(config.jobLeaseSec ? { queue: { leaseMs: config.jobLeaseSec * 1000, reapEveryMs: store.jobs.shared ? Math.min(10_000, config.jobLeaseSec * 500) : 0 } } : {}),
  });
  // A key left pending by a crash of this instance is freed at start; on a shared PostgreSQL the
  // pending keys may be other live instances' work, so there they stay until their time to live.
  if (store.engine === "sqlite") void idempotency.releaseAllPending();
  // On SQLite every step below runs to its end before this function returns (no I/O wait).
  void worker.start().catch((error: Error) => log.error("job worker did not start", { error: error.message }));
  const sweep = () => {
    void worker.sweep();
    idempotency
      .purge(new Date(now().getTime() - config.idempotencyTtlHours * 3_600_000))
      .catch((error: Error) => log.warn("idempotency purge failed", { error: error.message }));
  };
  sweep();
  const timer = setInterval(sweep, sweepEveryMs);
  timer.unref?.();
  // Retries refunds not sent, failed or still unconfirmed (also those left by a previous run).
  const payRefunds = () => void refunds?.pass().catch((error: Error) => log.warn("refund pass failed", { error: error.message }));
  payRefunds();
  const refundTimer = refunds ? setInterval(payRefunds, sweepEveryMs) : undefined;
  refundTimer?.unref?.();
  store.onClose(() => {
    clearInterval(timer);
    if (refundTimer) clearInterval(refundTimer);
    refunds?.stop();
    worker.stop();
  });
  const routes = createJobRoutes({ operation, registry, jobs: store.jobs, idempotency, now });
  const limits: JobsInfo["limits"] = {
      max_concurrent_jobs: config.maxConcurrentJobs,
      max_queued_jobs: config.maxQueuedJobs,
      rate_limit_per_min: config.rateLimitPerMin,
      max_prompt_chars: config.maxPromptChars,
      job_timeout_sec: config.jobTimeoutSec,
      job_result_ttl_hours: config.jobResultTtlHours,
      idempotency_ttl_hours: config.idempotencyTtlHours,
      sla_cap_ms: config.slaCapMs,
  };
  const undeclared = (what: string) => () => {
    throw new Error(`a free document read the ${what} without declaring it in its reads.jobs`);
  };
  const none: JobsInfo = { limits, activeJobs: undeclared("active jobs"), stats: undeclared("7-day figures") };
  const withFigures = (count: number | undefined, stats: ReturnType<JobsInfo["stats"]> | undefined): JobsInfo => ({
    limits,
    activeJobs: count === undefined ? none.activeJobs : () => count,
    stats: stats === undefined ? none.stats : () => stats,
  });
  // The figures of the active count alone, kept while the count holds (the capabilities read them on every call).
  let activeOnly: { readonly count: number; readonly info: JobsInfo } | undefined;
  const figures = Object.assign(
    (needs: JobFigureNeeds): JobsInfo | Promise<JobsInfo> => {
      const active = needs.active ? store.jobs.recentActiveCount() : undefined;
      // The capabilities (active jobs alone, read on every call) stay synchronous while the count is kept.
      if (!needs.stats && !(active instanceof Promise)) {
        if (active === undefined) return none;
        if (activeOnly?.count !== active) activeOnly = { count: active, info: withFigures(active, undefined) };
        return activeOnly.info;
      }
      return Promise.all([active, needs.stats ? worker.stats() : undefined]).then(([count, stats]) => withFigures(count, stats));
    },
    { none },
  );
  const info = { limits, figures };
  const status = async (id: string) => {
    const row = await findVisibleJob(store.jobs, id, now);
    return row ? { row, view: jobView(row, registry.skill(row.skill)) } : undefined;
  };
  return { routes, worker, refunds, info, status };
}
