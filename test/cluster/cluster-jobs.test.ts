/**
 * Four `tollbooth serve` processes on one real PostgreSQL behind a round-robin loopback proxy (issue
 * 28): 50 jobs submitted across the instances all complete exactly once with their own result, also
 * after one instance is killed (SIGKILL) with jobs running; the cluster never runs more jobs at once
 * than `max_concurrent_jobs`; an Idempotency-Key holds across instances (same job, or 422 for another
 * body); every instance answers a job's status alike; and a caller's rate limit counts its calls on
 * every instance together. Callers are named by X-Forwarded-For (the instances trust loopback).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginFolder } from "../support/plugin-files.ts";
import { startPostgres, type TestPostgres } from "../support/postgres.ts";
import { skipWithout } from "../support/requirements.ts";
import { type RoundRobinProxy, startRoundRobinProxy } from "../support/round-robin-proxy.ts";
import { type StartedProcess, startProcess } from "../support/spawn-binary.ts";

const noPostgres = skipWithout("postgres", "the four-instance cluster test");

const root = join(import.meta.dir, "../..");
const runLog = join(mkdtempSync(join(tmpdir(), "tb-cluster-log-")), "runs.log");
writeFileSync(runLog, "");
const cap = 4;
const limit = 5;

// Each run writes a start and an end line (with its process id) to one file: O_APPEND lines from
// several processes do not interleave.
const skill = `import { appendFileSync } from "node:fs";
import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: "cluster.work",
  summary: "Waits a moment and echoes its number.",
  input: t.Object({ n: t.Integer({ minimum: 0, maximum: 1000 }) }, { additionalProperties: false }),
  price: "0.001",
  async: true,
  timeoutMs: 20000,
  examples: [{ input: { n: 1 }, output: { n: 1 } }],
  async run({ n }) {
    appendFileSync(${JSON.stringify(runLog)}, "start " + n + " " + process.pid + " " + Date.now() + "\\n");
    await new Promise((resolve) => setTimeout(resolve, 300));
    appendFileSync(${JSON.stringify(runLog)}, "end " + n + " " + process.pid + " " + Date.now() + "\\n");
    return { n };
  },
});
`;

let pg: TestPostgres | undefined;
let instances: StartedProcess[] = [];
let proxy: RoundRobinProxy | undefined;

beforeAll(async () => {
  if (noPostgres) return;
  pg = await startPostgres();
  const url = await pg.createDatabase("cluster");
  const plugins = pluginFolder({ "cluster-work.ts": skill });
  const serve = (i: number) =>
    startProcess(
      [
        join(root, "node_modules/.bin/bun"),
        "src/main.ts",
        "serve",
        "--database-url",
        url,
        "--data",
        mkdtempSync(join(tmpdir(), `tb-cluster-${i}-`)),
        "--port",
        "0",
        "--plugins",
        plugins,
        "--max-concurrent-jobs",
        String(cap),
        "--job-lease-sec",
        "3",
        "--rate-limit-per-min",
        String(limit),
        "--trust-proxy",
        "127.0.0.1",
        "--memory-soft-limit-mb",
        "0",
      ],
      { cwd: root, timeoutMs: 90_000 },
    );
  // Started together: the migrations run once, under the advisory lock.
  instances = await Promise.all([0, 1, 2, 3].map(serve));
  proxy = startRoundRobinProxy(instances.map((p) => p.baseUrl));
}, 180_000);

afterAll(async () => {
  proxy?.stop();
  await Promise.all(instances.map((p) => p.stop().catch(() => {})));
  await pg?.stop();
});

const submit = (base: string, body: unknown, caller: string, key?: string) =>
  fetch(`${base}/v1/jobs`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": caller, ...(key ? { "idempotency-key": key } : {}) },
    body: JSON.stringify(body),
  });

interface JobView {
  id: string;
  status: string;
  result?: { n: number };
}

async function waitFinished(id: string, deadline: number): Promise<JobView> {
  for (;;) {
    const answer = await fetch(`${proxy!.url}/v1/jobs/${id}`);
    const view = (await answer.json()) as JobView;
    // The balancer's own 502 (every backend failed this once, e.g. right after the kill): ask again until the deadline.
    if (answer.status === 502 && Date.now() < deadline) {
      await Bun.sleep(100);
      continue;
    }
    if (!["queued", "running"].includes(view.status) || Date.now() > deadline) return view;
    await Bun.sleep(100);
  }
}

test.skipIf(noPostgres)(
  "50 jobs across four instances complete exactly once, also after one instance is killed with jobs running; the cluster cap holds",
  async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => submit(proxy!.url, { skill: "cluster.work", n }, `10.0.${Math.floor(n / 4)}.${n % 4 + 1}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    const ids = await Promise.all(answers.map(async (a) => ((await a.json()) as { job_id: string }).job_id));
    expect(new Set(ids).size).toBe(50);
    // Every instance took submissions.
    expect(proxy!.served.every((count) => count > 0)).toBe(true);

    // Kill an instance while it runs a job (its pid wrote a start line without an end): the newest such job,
    // started under 100 ms ago, so its 300 ms run cannot end between this look and the kill (an older one did once).
    const running = (): string | undefined => {
      const lines = readFileSync(runLog, "utf8").split("\n").map((l) => l.split(" "));
      const open = lines.filter(([kind, n, pid]) => kind === "start" && !lines.some(([k, m, p]) => k === "end" && m === n && p === pid));
      const newest = open.at(-1);
      return newest && Date.now() - Number(newest[3]) < 100 ? newest[2] : undefined;
    };
    let victimPid: string | undefined;
    for (const deadline = Date.now() + 30_000; !victimPid && Date.now() < deadline; ) {
      victimPid = running();
      if (!victimPid) await Bun.sleep(10);
    }
    expect(victimPid).toBeDefined();
    const victim = instances.find((p) => String(p.proc.pid) === victimPid)!;
    victim.proc.kill(9);
    await victim.proc.exited;
    const killedAt = Date.now();

    const views = await Promise.all(ids.map((id) => waitFinished(id, Date.now() + 60_000)));
    expect(views.map((v) => v.status)).toEqual(Array(50).fill("completed"));
    expect(views.map((v) => v.result?.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));

    // Runs: each number ran to its end at least once; only the killed instance's runs were cut short.
    const lines = readFileSync(runLog, "utf8").trim().split("\n").map((l) => l.split(" "));
    const ends = lines.filter(([kind]) => kind === "end");
    expect(new Set(ends.map(([, n]) => n)).size).toBe(50);
    const cut = lines.filter(([kind, n, pid]) => kind === "start" && !ends.some(([, m, p]) => m === n && p === pid));
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every(([, , pid]) => pid === victimPid)).toBe(true);

    // The cluster never ran more than `cap` jobs at once (a cut run counts until the kill).
    const spans = lines
      .filter(([kind]) => kind === "start")
      .map(([, n, pid, at]) => {
        const end = ends.find(([, m, p]) => m === n && p === pid);
        return { from: Number(at), to: end ? Number(end[3]) : killedAt };
      });
    const peak = Math.max(...spans.map((s) => spans.filter((o) => o.from <= s.from && s.from < o.to).length));
    expect(peak).toBeLessThanOrEqual(cap);
  },
  120_000,
);

test.skipIf(noPostgres)("an Idempotency-Key holds across instances: the same job from another instance, 422 for another body", async () => {
  const [a, b, c] = instances.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
  const first = await submit(a!.baseUrl, { skill: "cluster.work", n: 500 }, "10.8.8.8", "cluster-key-1");
  expect(first.status).toBe(202);
  const job = { id: ((await first.json()) as { job_id: string }).job_id };
  const again = await submit(b!.baseUrl, { skill: "cluster.work", n: 500 }, "10.8.8.8", "cluster-key-1");
  expect(again.status).toBe(202);
  expect(((await again.json()) as { job_id: string }).job_id).toBe(job.id);
  const other = await submit(c!.baseUrl, { skill: "cluster.work", n: 501 }, "10.8.8.8", "cluster-key-1");
  expect(other.status).toBe(422);
  const views = await Promise.all(
    [a, b, c].map(async (p) => {
      await waitFinished(job.id, Date.now() + 20_000);
      return (await (await fetch(`${p!.baseUrl}/v1/jobs/${job.id}`)).json()) as JobView;
    }),
  );
  expect(views.map((v) => [v.status, v.result?.n])).toEqual(Array(3).fill(["completed", 500]));
}, 60_000);

test.skipIf(noPostgres)("a caller's rate limit holds for the cluster: its calls on every instance count together", async () => {
  const live = instances.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
  const statuses: number[] = [];
  // One caller, spread over the live instances in turn: the limit is reached whichever instance answers.
  for (let n = 0; n < limit + 2; n++) {
    const answer = await submit(live[n % live.length]!.baseUrl, { skill: "cluster.work", n: 600 + n }, "10.9.9.9");
    statuses.push(answer.status);
    await answer.body?.cancel();
  }
  expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(202));
  expect(statuses.slice(limit)).toEqual([429, 429]);
  // Another caller is not limited by it.
  expect((await submit(live[0]!.baseUrl, { skill: "cluster.work", n: 700 }, "10.9.9.10")).status).toBe(202);
}, 30_000);

test.skipIf(noPostgres)("every instance publishes the one evidence key set the cluster signs with", async () => {
  const live = instances.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
  const sets = await Promise.all(live.map(async (p) => (await (await fetch(`${p.baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string; kty: string }[] }));
  // One evidence key, and the WACZ package key derived from it (the same on every instance).
  expect(sets[0]!.keys.map((k) => k.kty)).toEqual(["OKP", "EC"]);
  for (const set of sets) expect(set).toEqual(sets[0]!);
}, 30_000);
