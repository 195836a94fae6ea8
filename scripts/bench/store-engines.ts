/**
 * Store engines (issue 28): what one paid job submission's idempotency-key work costs (claim, then
 * remember the answer; src/jobs/idempotency-keys.ts) on PostgreSQL beside SQLite, in the same run.
 * PostgreSQL is a real server on loopback started for the run (test/support/postgres.ts: initdb and
 * pg_ctl into a temp folder, durability off as in the tests, so this is the round-trip and driver
 * cost, not disk). SQLite is a WAL file. Calls go one at a time (latency, not throughput).
 * Run: node_modules/.bin/bun scripts/bench/store-engines.ts [--calls 2000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createIdempotencyStore, idempotencyMigrations } from "../../src/jobs/idempotency.ts";
import { type IdempotencyKeys, sqliteIdempotencyKeys } from "../../src/jobs/idempotency-keys.ts";
import { createPgIdempotencyKeys, idempotencyPgMigrations } from "../../src/jobs/idempotency-pg.ts";
import { openDatabase } from "../../src/store/db.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { startPostgres } from "../../test/support/postgres.ts";

const argv = process.argv.slice(2);
const at = argv.indexOf("--calls");
const calls = at >= 0 ? Number(argv[at + 1]) : 2000;

const folder = mkdtempSync(join(tmpdir(), "tb-bench-engines-"));
const sqlite = openDatabase({ path: join(folder, "keys.db"), migrations: idempotencyMigrations });
const server = await startPostgres();
const pg = await openPostgres({ url: await server.createDatabase("bench"), migrations: idempotencyPgMigrations, max: 4 });

const engines: { name: string; keys: IdempotencyKeys; ms: number[] }[] = [
  { name: "SQLite (reference)", keys: sqliteIdempotencyKeys(createIdempotencyStore(sqlite, 86_400_000)), ms: [] },
  { name: "PostgreSQL", keys: createPgIdempotencyKeys(pg, 86_400_000), ms: [] },
];
const answer = { status: 202, headers: { "content-type": "application/json" }, body: '{"job_id":"j"}' };

let serial = 0;
async function oneCall(keys: IdempotencyKeys): Promise<number> {
  const key = `k-${++serial}`;
  const started = performance.now();
  const claim = await keys.claim("caller", key, "body-hash", new Date());
  if (claim.kind !== "claimed") throw new Error(`claim ${key}: ${claim.kind}`);
  await keys.remember("caller", key, answer, "j");
  return performance.now() - started;
}

for (const e of engines) for (let i = 0; i < 200; i++) await oneCall(e.keys); // warm up
// Call by call in turns, so drift on a shared machine hits both engines alike.
for (let i = 0; i < calls; i++) for (const e of engines) e.ms.push(await oneCall(e.keys));

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
console.log(`idempotency claim + remember, ${calls} calls each, one at a time:`);
const [reference] = engines;
for (const e of engines) {
  console.log(`  ${e.name.padEnd(20)} p50 ${pct(e.ms, 0.5).toFixed(3)} ms   p90 ${pct(e.ms, 0.9).toFixed(3)} ms   p50 added: ${(pct(e.ms, 0.5) - pct(reference!.ms, 0.5)).toFixed(3)} ms`);
}
sqlite.close();
await pg.end();
await server.stop();
rmSync(folder, { recursive: true, force: true });
