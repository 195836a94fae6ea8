/**
 * @module jobs/module — the job queue as one feature module: its tables on both engines (jobs and
 * idempotency keys) and its routes (POST /v1/jobs, POST /v1/jobs/:skill, GET /v1/jobs/:id). The
 * worker, the routes' service and its sweep are built by jobs/setup.ts, which app.ts still calls (the
 * paid operation and the agent doors sell through it).
 */
import { defineModule, type ModuleDeps } from "../module/define.ts";
import type { JobService } from "./setup.ts";
import { tables } from "./tables.ts";

export default defineModule({
  id: "jobs",
  tables,
  serve: ({ jobs }: ModuleDeps & { readonly jobs: Pick<JobService, "routes"> }) => ({
    routes: [
      { method: "POST", path: "/v1/jobs", handle: (request) => jobs.routes.submit(request, undefined) },
      { method: "POST", path: "/v1/jobs/:skill", handle: (request, call) => jobs.routes.submit(request, call.params.skill) },
      { method: "GET", path: "/v1/jobs/:id", handle: (request, call) => jobs.routes.get(request, call.params.id!) },
    ],
  }),
});
