/**
 * Job queue throughput (issue 28): jobs per second through the queue on PostgreSQL with 4 worker
 * instances (4 pools on one database, each its own worker: claim under lease with SKIP LOCKED and
 * the cluster-cap advisory lock, NOTIFY wake-ups, fenced completion) beside SQLite with one
 * instance, in the same run. Each job is accepted through the worker (insert held, release, claim,
 * run, complete) and its skill returns at once, so this is the queue's own cost. The cluster cap
 * (max_concurrent_jobs) is the same for both. PostgreSQL is a real server on loopback started for
 * the run (test/support/postgres.ts, durability off as in the tests); SQLite is a WAL file.
 * Run: node_modules/.bin/bun scripts/bench/job-queue.ts [--jobs 2000] [--cap 16]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type as t } from "@sinclair/typebox";
import { jobMigrations, type JobStore } from "../../src/jobs/job-store.ts";
import { createJobStore } from "../../src/jobs/job-store-sqlite.ts";
import { createPgJobStore, jobPgMigrations } from "../../src/jobs/job-store-pg.ts";
import { createJobWorker, type JobWorker } from "../../src/jobs/worker.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { paymentsOff } from "../../src/paid-call/payments.ts";
import type { PluginContext } from "../../src/plugin/context.ts";
import { defineSkill } from "../../src/plugin/define.ts";
import { buildRegistry } from "../../src/plugin/registry.ts";
import { openDatabase } from "../../src/store/db.ts";
import { openPostgres, type Sql } from "../../src/store/postgres.ts";
import { startPostgres } from "../../test/support/postgres.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const jobs = option("--jobs", 2000);
const cap = option("--cap", 16);

const registry = buildRegistry([
  {
    file: "/bench/bench-noop.ts",
    source: "external",
    exports: {
      default: defineSkill({
        skill: "bench.noop",
        summary: "Answers at once.",
        input: t.Object({ n: t.Number() }, { additionalProperties: false }),
        price: "0.001",
        async: true,
        timeoutMs: 10_000,
        examples: [{ input: { n: 1 } }],
        run: async ({ n }) => ({ n }),
      }),
    },
  },
]);
const entry = registry.skill("bench.noop")!;

function worker(store: JobStore): JobWorker {
  return createJobWorker({
    jobs: store,
    registry,
    payments: paymentsOff,
    log: createMemoryLogger(),
    limits: { maxConcurrentJobs: cap, maxQueuedJobs: jobs * 2, jobResultTtlHours: 1, jobTimeoutSec: 60, slaCapMs: 60_000 },
    contextFor: (_entry, signal) => ({ signal }) as unknown as PluginContext,
    queue: { pollEveryMs: 500, reapEveryMs: 5_000 },
  });
}

/** Accepts `jobs` jobs round-robin across the workers (16 submitters at once) and waits until all completed. */
async function run(name: string, stores: JobStore[]): Promise<number> {
  const workers = stores.map(worker);
  for (const w of workers) await w.start();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < jobs) {
        const n = next++;
        const outcome = await workers[n % workers.length]!.accept({ entry, value: { n }, payment: paymentsOff.restore(null), caller: "addr:127.0.0.1", priceMicros: 1000, requestId: `req_${n}` });
        if (outcome.kind !== "accepted") throw new Error(`job ${n} refused`);
      }
    }),
  );
  while ((await stores[0]!.countByStatus("completed")) < jobs) await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = (performance.now() - started) / 1000;
  for (const w of workers) w.stop();
  const perSec = jobs / seconds;
  console.log(`  ${name.padEnd(34)} ${perSec.toFixed(0).padStart(6)} jobs/s  (${jobs} jobs in ${seconds.toFixed(2)} s)`);
  return perSec;
}

const folder = mkdtempSync(join(tmpdir(), "tb-bench-queue-"));
const server = await startPostgres();
try {
  console.log(`job queue: accept → claim → run (no-op skill) → complete, cap ${cap} for the cluster:`);
  const db = openDatabase({ path: join(folder, "jobs.db"), migrations: jobMigrations });
  const sqlite = await run("SQLite, 1 instance (reference)", [createJobStore(db)]);
  db.close();
  const url = await server.createDatabase("bench_queue");
  const pools: Sql[] = [];
  for (let i = 0; i < 4; i++) pools.push(await openPostgres({ url, migrations: jobPgMigrations, max: 4 }));
  const pg = await run("PostgreSQL, 4 instances", pools.map((sql) => createPgJobStore(sql)));
  await Promise.all(pools.map((sql) => sql.end({ timeout: 1 })));
  console.log(`  PostgreSQL / SQLite: ${(pg / sqlite).toFixed(2)}`);
} finally {
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
}
