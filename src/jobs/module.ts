/**
 * @module jobs/module — the job queue as one feature module: its tables on both engines (jobs and
 * idempotency keys). The worker, the job routes and their sweep are wired by jobs/setup.ts, which
 * app.ts calls.
 */
import { defineModule } from "../module/define.ts";
import { tables } from "./tables.ts";

export default defineModule({ id: "jobs", tables });
