/**
 * @module paid-call/module — the paid-call core as a feature module. What it owns is code every sale
 * runs through (sell.ts, call.ts, the payments seam, the job queue port) rather than tables, routes or
 * documents, so its declaration is its id.
 *
 * Its one table, the per-caller rate-limit windows (rate-limit-pg.ts), exists on PostgreSQL only and
 * stays a table family of database.ts: a module's `tables` list the same migration ids on both
 * engines (module/compose.ts), and SQLite does not need one. One instance serves from a SQLite file,
 * and it counts in memory (rate-limit.ts): a restart forgives everyone, which is harmless, and a
 * table would add a write to every paid call for nothing.
 */
import { defineModule } from "../module/define.ts";

export default defineModule({ id: "paid-call" });
