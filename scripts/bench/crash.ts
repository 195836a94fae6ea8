/**
 * kill -9 under load (issue 15 §5): our server (`src/main.ts serve`, or `--binary PATH`) takes async
 * jobs, web reads and sync skill calls from 8 clients; after a few seconds it is killed with SIGKILL
 * while jobs are queued and running, checked (`PRAGMA integrity_check` on its database), started
 * again on the same data folder and port, and the clients go on (each polls its job to the end, as
 * an agent does, so a few jobs are queued or running at any time). At the end every job that was
 * acknowledged (202 with a job id) must still exist and reach a final state: `completed` with its
 * own result, or `failed` with JOB_INTERRUPTED if it was running at a kill. Nothing may be lost.
 *
 *   node_modules/.bin/bun scripts/bench/crash.ts [--kills 10] [--seconds 3] [--clients 8] [--binary dist/tollbooth]
 */
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { option, servePages } from "./dev-set.ts";
import { freePort, loadBenchArgs, type ServerProcess, startServerProcess } from "./server-process.ts";

const kills = Number(option("kills", "10"));
const seconds = Number(option("seconds", "3"));
const clients = Number(option("clients", "8"));
const binary = option("binary", "");

const work = mkdtempSync(join(tmpdir(), "tb-crash-"));
const plugins = join(work, "plugins");
mkdirSync(plugins);
writeFileSync(
  join(plugins, "bench-work.ts"),
  `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: "bench.work",
  summary: "Works 20-300 ms, then answers its tag.",
  input: t.Object({ tag: t.String({ maxLength: 64 }) }, { additionalProperties: false }),
  price: "0.001",
  async: true,
  timeoutMs: 30_000,
  examples: [{ input: { tag: "a" } }],
  async run({ tag }, ctx) {
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 280));
    return { tag };
  },
});
`,
);
const fixtures = join(import.meta.dir, "..", "..", "test", "fixtures", "pages");
const pages = readdirSync(fixtures).filter((f) => f.endsWith(".html") && !f.startsWith("challenge")).map((f) => new Uint8Array(readFileSync(join(fixtures, f))));
const site = servePages(pages);

const data = join(work, "data");
const logPath = join(work, "server.log");
const port = await freePort();
const start = () => startServerProcess({ data, logPath, port, binary: binary || undefined, args: [...loadBenchArgs, "--plugins", plugins] });
let server: ServerProcess = await start();
const base = server.base;

/** Every job a client saw acknowledged: id → the tag it was submitted with. */
const acknowledged = new Map<string, string>();
const answers = new Map<string, number>();
const count = (key: string) => answers.set(key, (answers.get(key) ?? 0) + 1);
let running = true;
let tags = 0;

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** As an agent does: polls its job until it is final (through kills: a refused poll is tried again). */
async function pollUntilFinal(id: string): Promise<void> {
  while (running) {
    try {
      const res = await fetch(`${base}/v1/jobs/${id}`);
      const job = (await res.json()) as { status?: string };
      if (res.status !== 200 || !["queued", "running"].includes(String(job.status))) return;
    } catch {
      // server down: poll again once it is back
    }
    await Bun.sleep(50);
  }
}

async function client(): Promise<void> {
  while (running) {
    try {
      const r = Math.random();
      if (r < 0.6) {
        const tag = `t${tags++}`;
        const res = await post("/v1/jobs", { skill: "bench.work", tag });
        const json = (await res.json()) as { job_id?: string };
        count(String(res.status));
        if (res.status === 202 && json.job_id) {
          acknowledged.set(json.job_id, tag);
          await pollUntilFinal(json.job_id);
        }
      } else if (r < 0.8) {
        const res = await post("/v1/web/read", { url: `http://127.0.0.1:${site.port}/p/${Math.floor(Math.random() * pages.length)}.html` });
        await res.arrayBuffer();
        count(String(res.status));
      } else {
        const res = await post("/v1/jobs", { skill: "capabilities" });
        await res.arrayBuffer();
        count(String(res.status));
      }
    } catch {
      count("no answer (server down)");
      await Bun.sleep(50);
    }
  }
}

function integrity(): string {
  const db = new Database(join(data, "tollbooth.db"));
  try {
    return db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all().map((r) => r.integrity_check).join("; ");
  } finally {
    db.close();
  }
}

console.log(`crash: ${kills} × kill -9 after ${seconds} s of load each, ${clients} clients (async jobs 60%, web reads 20%, sync skill 20%); ${navigator.hardwareConcurrency} cores, load average ${loadavg()[0]!.toFixed(1)} (shared machine)`);
const loads = Array.from({ length: clients }, client);
const checks: string[] = [];
for (let k = 1; k <= kills; k++) {
  await Bun.sleep(seconds * 1000 * (0.5 + Math.random()));
  const before = acknowledged.size;
  await server.kill();
  const check = integrity();
  checks.push(check);
  console.log(`  kill ${String(k).padStart(2)}: ${before} jobs acknowledged so far; integrity_check: ${check}`);
  server = await start();
}
running = false;
await Promise.all(loads);

// Every acknowledged job reaches a final state on the last server.
const finalStates = new Map<string, number>();
const problems: string[] = [];
const deadline = performance.now() + 120_000;
for (const [id, tag] of acknowledged) {
  for (;;) {
    const res = await fetch(`${base}/v1/jobs/${id}`);
    const job = (await res.json()) as { status?: string; result?: { tag?: string }; error?: { code?: string } };
    if (res.status === 404) {
      problems.push(`${id}: lost (404)`);
      break;
    }
    if (job.status === "completed") {
      if (job.result?.tag !== tag) problems.push(`${id}: completed with tag ${job.result?.tag}, submitted ${tag}`);
      finalStates.set("completed", (finalStates.get("completed") ?? 0) + 1);
      break;
    }
    if (job.status === "failed" || job.status === "expired") {
      const key = `${job.status} ${job.error?.code ?? ""}`.trim();
      finalStates.set(key, (finalStates.get(key) ?? 0) + 1);
      if (job.error?.code !== "JOB_INTERRUPTED") problems.push(`${id}: ${key}`);
      break;
    }
    if (performance.now() > deadline) {
      problems.push(`${id}: still ${job.status} after 120 s`);
      break;
    }
    await Bun.sleep(100);
  }
}
await server.stop();
const lastCheck = integrity();

console.log(`\nanswers under load: ${[...answers].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ×${n}`).join(", ")}`);
console.log(`jobs acknowledged: ${acknowledged.size}; final states: ${[...finalStates].map(([k, n]) => `${k} ×${n}`).join(", ")}`);
console.log(`jobs lost or wrong: ${problems.length}${problems.length ? `\n  ${problems.slice(0, 20).join("\n  ")}` : ""}`);
const bad = [...checks, lastCheck].filter((c) => c !== "ok").length;
console.log(`integrity_check: ok after ${checks.length - bad + (lastCheck === "ok" ? 1 : 0)} of ${checks.length + 1} checks (each kill and the final stop)`);
await site.stop(true);
rmSync(work, { recursive: true, force: true });
process.exit(problems.length === 0 && bad === 0 ? 0 : 1);
