/**
 * @module jobs/module — the job queue as one feature module: its tables on both engines (jobs and
 * idempotency keys), its service (jobs/setup.ts: the worker, its refunds and sweep, the live figures
 * the free documents read), offered to the agent doors and the front as `services.jobs`, and its
 * routes (POST /v1/jobs, POST /v1/jobs/:skill, GET /v1/jobs/:id).
 */
import type { Payments } from "../paid-call/payments.ts";
import type { Registry } from "../plugin/registry.ts";
import type { RefundSender } from "../x402/refund.ts";
import type { OperationDeps } from "../http/operation.ts";
import { defineModule, type ModuleDeps } from "../module/define.ts";
import { checkPromptLength } from "./limits.ts";
import { createJobService, type JobConfig, type JobFigureNeeds, type JobService } from "./setup.ts";
import type { JobRow } from "./job-store.ts";
import { tables } from "./tables.ts";

declare module "../module/define.ts" {
  interface ModuleServices {
    readonly jobs: JobService;
  }
}

export interface JobsServeDeps extends ModuleDeps {
  readonly config: JobConfig;
  readonly registry: Registry;
  readonly payments: Payments;
  /** How the job routes sell a call (built by the front, whose queue is this module's worker). */
  readonly operation: OperationDeps<JobRow>;
  readonly refundSenders?: ReadonlyMap<string, RefundSender> | undefined;
}

export default defineModule({
  id: "jobs",
  tables,
  serve: ({ config, registry, store, payments, log, now, operation, refundSenders, services }: JobsServeDeps) => {
    const seal = services.evidence.seal;
    const jobs = createJobService({ config, registry, store, payments, log, now, operation, ...(seal ? { seal } : {}), ...(refundSenders ? { refundSenders } : {}) });
    return {
      service: jobs,
      salePorts: { queue: jobs.worker },
      // A prompt field longer than --max-prompt-chars is refused on every paid call, operations and skills alike.
      checkInput: (input) => checkPromptLength(input, config.maxPromptChars),
      // The limits every free document shows, and the live load and 7-day figures a document declared it reads.
      liveDocs: (reads) => (reads ? jobs.info.figures(reads as JobFigureNeeds) : jobs.info.figures.none),
      routes: [
        { method: "POST", path: "/v1/jobs", handle: (request) => jobs.routes.submit(request, undefined) },
        { method: "POST", path: "/v1/jobs/:skill", handle: (request, call) => jobs.routes.submit(request, call.params.skill) },
        { method: "GET", path: "/v1/jobs/:id", handle: (request, call) => jobs.routes.get(request, call.params.id!) },
      ],
    };
  },
});
