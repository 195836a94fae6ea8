/**
 * @module paid-call/module — the paid-call core as a feature module. What it owns is mostly code every
 * sale runs through (sell.ts, call.ts, the job queue port), and one table: the per-caller rate-limit
 * windows (tables.ts), kept in memory on SQLite.
 */
import { defineModule } from "../module/define.ts";
import { tables } from "./tables.ts";

export default defineModule({ id: "paid-call", tables });
