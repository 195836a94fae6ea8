/**
 * Job worker figures (issue 6): sync `capabilities` calls per second against `/health` on the same
 * server in the same run (payments off), and the queue-start delay of 20 async jobs submitted at
 * once (p50, p90, the first 3). Run: node_modules/.bin/bun scripts/bench/jobs.ts
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";

const plugins = mkdtempSync(join(tmpdir(), "tb-bench-jobs-"));
writeFileSync(
  join(plugins, "bench-sleep.ts"),
  `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: "bench.sleep", summary: "Sleeps 100 ms.", input: t.Object({}, { additionalProperties: false }),
  price: "0.001", async: true, timeoutMs: 10_000, examples: [{ input: {} }],
  async run() { await new Promise((r) => setTimeout(r, 100)); return { slept: 100 }; },
});
`,
);
const config = loadConfig({ argv: ["--port", "0", "--data", ":memory:", "--plugins", plugins, "--rate-limit-per-min", "100000000", "--max-queued-jobs", "1000"] });
const service = await startService(config, { log: createMemoryLogger() });
const base = service.server.url.toString().replace(/\/$/, "");

async function rate(label: string, call: () => Promise<Response>, ms = 3000, clients = 16): Promise<number> {
  for (let i = 0; i < 200; i++) await (await call()).arrayBuffer(); // warm up
  let count = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const res = await call();
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${label}: status ${res.status}`);
        count++;
      }
    }),
  );
  const perSec = count / (ms / 1000);
  console.log(`${label.padEnd(28)} ${perSec.toFixed(0)} req/s (${clients} clients, ${ms} ms)`);
  return perSec;
}

const health = await rate("GET /health", () => fetch(`${base}/health`));
const caps = await rate("POST /v1/jobs capabilities", () =>
  fetch(`${base}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"skill":"capabilities"}' }),
);
console.log(`capabilities / health        ${(caps / health).toFixed(2)} (target ≥ 0.50)`);

const submitted = await Promise.all(
  Array.from({ length: 20 }, async () => {
    const res = await fetch(`${base}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"skill":"bench.sleep"}' });
    return ((await res.json()) as { job_id: string }).job_id;
  }),
);
for (;;) {
  const pending = service.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs WHERE skill = 'bench.sleep' AND status != 'completed'").get()?.n ?? 0;
  if (pending === 0) break;
  await new Promise((r) => setTimeout(r, 20));
}
const rows = (await Promise.all(submitted.map(async (id) => (await service.store.jobs.get(id))!))).sort((a, b) => Date.parse(a.startedAt!) - Date.parse(b.startedAt!));
const delays = rows.map((r) => Date.parse(r.startedAt!) - Date.parse(r.createdAt));
const sorted = [...delays].sort((a, b) => a - b);
const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
console.log(`queue start (20 at once, 3 workers, 100 ms jobs): first 3 ${delays.slice(0, 3).join(", ")} ms · p50 ${at(50)} ms · p90 ${at(90)} ms · max ${sorted.at(-1)} ms`);
console.log(`  expected max ≈ ⌈20/3⌉−1 waves × 100 ms = ${(Math.ceil(20 / 3) - 1) * 100} ms`);
await service.close();
process.exit(0);
