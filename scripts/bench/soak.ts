/**
 * Memory under a long mixed load (issue 15 §5): 8 clients on loopback for 15 minutes (or
 * `--minutes N`) against our server in its own process (`src/main.ts serve`, or `--binary PATH`),
 * each call drawn at random from a fixed mix:
 *   45% POST /v1/web/read (1 in 8 of them a ~600 KB page; the rest the extraction dev set, or the
 *       test fixtures without it), 15% POST /v1/web/changes (a hash or a prior text as baseline),
 *   10% POST /v1/jobs capabilities (sync), 5% POST /v1/jobs host.report (async, polled to the end),
 *   25% free documents (/health, /v1/capabilities, /openapi.json, /llms.txt, /skill.md).
 * The pages come from a loopback page site in this process. It prints the server's RSS every
 * minute, its peak (kernel high-water mark), RSS after the first minute and at the end of the
 * load, the answers by status and error code, the server's CPU a call (every thread) and the log's size.
 * Beside it, in the same run, a bare Elysia server (bare-elysia.ts) answers /health to one client of its own:
 * its idle RSS, peak, RSS after the load and slope are the floor of the runtime and framework alone.
 * The slope is the least-squares fit of the per-minute RSS samples after the first minute (MiB a minute).
 * Targets (issue 41): peak < 200 MiB, idle after the load < 120 MiB, flat (slope near 0). They are about the
 * shipped executable (`npm run build`, then `--binary dist/tollbooth`): from source every thread loads its modules
 * unbundled and unminified, and the peak is ~25-40 MiB higher under the same load.
 *
 * `--reference PATH` soaks a second executable (the previous main's `npm run build`) beside ours in the same minutes,
 * with the same seeded mix from its own clients, and prints each figure beside it: on a shared machine only figures
 * of the same run compare.
 *
 * `--env K=V` (repeatable) adds a variable to the tested server's environment only, `--reference-env K=V` to the
 * reference's: e.g. JavaScriptCore's options (`BUN_JSC_maximumFTLCandidateBytecodeCost=5000`), which a process reads at
 * its start, tried on one copy of a binary with a second copy of it as the reference, and with the places swapped.
 *
 *   node_modules/.bin/bun scripts/bench/soak.ts [--minutes 15] [--clients 8] [--binary dist/tollbooth] [--reference PATH] [--server-args "..."]
 *     [--env K=V ...] [--reference-env K=V ...]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { DEV_SET_DIR, option, readRss, servePages } from "./dev-set.ts";
import { largePage, random } from "./large-page.ts";
import { readCpuMs } from "./proc-cpu.ts";
import { envLabel, loadBenchArgs, parseEnvPairs, repeatedOption, type ServerProcess, startServerProcess } from "./server-process.ts";

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MiB`;

const minutes = Number(option("minutes", "15"));
const clients = Number(option("clients", "8"));
const binary = option("binary", "");
/** A second executable (e.g. the previous main's build) soaked beside ours in the same minutes, with the same mix from its own clients. */
const reference = option("reference", "");
const serverArgs = option("server-args", "").split(/\s+/).filter(Boolean);
const testedEnv = parseEnvPairs(repeatedOption("env"));
const referenceEnv = parseEnvPairs(repeatedOption("reference-env"));

function loadPages(): { small: Uint8Array<ArrayBuffer>[]; source: string } {
  const devSet = join(DEV_SET_DIR, "html");
  const dir = existsSync(devSet) ? devSet : join(import.meta.dir, "..", "..", "test", "fixtures", "pages");
  const files = readdirSync(dir).filter((f) => /\.html?(\.gz)?$/.test(f)).sort();
  const small = files.map((f) => {
    const raw = readFileSync(join(dir, f));
    return new Uint8Array(f.endsWith(".gz") ? gunzipSync(raw) : raw);
  });
  return { small, source: dir };
}

const { small, source } = loadPages();
const large = Array.from({ length: 6 }, (_, i) => largePage(i + 1));
const site = servePages([...small, ...large]);
const pageUrl = (i: number) => `http://127.0.0.1:${site.port}/p/${i}.html`;

const work = mkdtempSync(join(tmpdir(), "tb-soak-"));

/** One server under the load: its process, its own seeded mix and what it answered. */
interface Soaked {
  readonly label: string;
  readonly server: ServerProcess;
  readonly logPath: string;
  readonly next: () => number;
  readonly byStatus: Map<string, number>;
  readonly usable: number[];
  calls: number;
  callsAtMinute: number;
  sampledPeak: number;
  afterFirstMinute: number;
  idle: { rss: number; peak: number };
}

async function startSoaked(label: string, serverBinary: string | undefined, env: Record<string, string>): Promise<Soaked> {
  const logPath = join(work, `${label}.log`);
  const server = await startServerProcess({ data: join(work, `${label}-data`), logPath, binary: serverBinary, args: [...loadBenchArgs, ...serverArgs], env });
  return { label, server, logPath, next: random(42), byStatus: new Map(), usable: [], calls: 0, callsAtMinute: 0, sampledPeak: 0, afterFirstMinute: NaN, idle: { rss: 0, peak: 0 } };
}

const soaked = [await startSoaked("server", binary || undefined, testedEnv), ...(reference ? [await startSoaked("reference", reference, referenceEnv)] : [])];
const ours = soaked[0]!;

const bare = spawn(process.execPath, [join(import.meta.dir, "bare-elysia.ts")], { stdio: ["ignore", "pipe", "inherit"] });
const barePort = await new Promise<number>((resolve, reject) => {
  bare.stdout!.on("data", (chunk: Buffer) => {
    const port = /listening (\d+)/.exec(chunk.toString())?.[1];
    if (port) resolve(Number(port));
  });
  bare.once("exit", (code) => reject(new Error(`bare Elysia exited with ${code}`)));
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void Promise.all(soaked.map((s) => s.server.kill())).then(() => (bare.kill(), process.exit(130))));
}

// Warm-up: pages the engine refuses (bot challenges, too complex) are left out of the mix. Each server in turn.
for (const target of soaked) {
  for (let i = 0; i < small.length; i += 8) {
    await Promise.all(
      small.slice(i, i + 8).map(async (_, k) => {
        const res = await fetch(`${target.server.base}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: pageUrl(i + k) }) });
        await res.arrayBuffer();
        if (res.status === 200) target.usable.push(i + k);
      }),
    );
  }
  target.usable.sort((a, b) => a - b);
}

const count = (target: Soaked, key: string) => target.byStatus.set(key, (target.byStatus.get(key) ?? 0) + 1);

async function call(target: Soaked, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
  const res = await fetch(`${target.server.base}${path}`, body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = res.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  target.calls++;
  count(target, res.status < 400 ? String(res.status) : `${res.status} ${String(json?.error ?? "")}`.trim());
  return { status: res.status, json };
}

const docs = ["/health", "/v1/capabilities", "/openapi.json", "/llms.txt", "/skill.md"];

async function oneCall(target: Soaked): Promise<void> {
  const { next, usable } = target;
  const anyPage = () => (next() < 1 / 8 ? small.length + Math.floor(next() * large.length) : usable[Math.floor(next() * usable.length)]!);
  const r = next();
  if (r < 0.45) await call(target, "/v1/web/read", { url: pageUrl(anyPage()), ...(next() < 0.3 ? { format: "markdown" } : {}) });
  else if (r < 0.6) {
    const baseline = next() < 0.5 ? { previous_sha256: "0".repeat(64) } : { previous_text: "An earlier line.\nAnother earlier line." };
    await call(target, "/v1/web/changes", { url: pageUrl(anyPage()), ...baseline });
  } else if (r < 0.7) await call(target, "/v1/jobs", { skill: "capabilities" });
  else if (r < 0.75) {
    const submitted = await call(target, "/v1/jobs", { skill: "host.report" });
    const id = submitted.json?.job_id;
    for (let polls = 0; typeof id === "string" && polls < 200; polls++) {
      const polled = await call(target, `/v1/jobs/${id}`);
      if (polled.status !== 200 || !["queued", "running"].includes(String(polled.json?.status))) break;
      await Bun.sleep(100);
    }
  } else await call(target, docs[Math.floor(next() * docs.length)]!);
}

console.log(
  `soak: ${clients} clients for ${minutes} min; ${ours.usable.length} of ${small.length} pages from ${source} usable, plus ${large.length} generated pages of ~${(large[0]!.byteLength / 1000).toFixed(0)} KB; server ${binary || "src/main.ts"} (pid ${ours.server.pid})${serverArgs.length ? ` ${serverArgs.join(" ")}` : ""}${envLabel(testedEnv)}`,
);
if (reference) console.log(`reference: ${reference}${envLabel(referenceEnv)} (pid ${soaked[1]!.server.pid}), ${soaked[1]!.usable.length} pages usable, the same mix from its own ${clients} clients in the same minutes`);
console.log(`machine: ${navigator.hardwareConcurrency} cores, load average ${loadavg()[0]!.toFixed(1)} at start (shared: other work slows the load, not the memory figures)`);
for (const target of soaked) target.idle = readRss(target.server.pid);
const bareIdle = readRss(bare.pid!);
console.log(`RSS idle after warm-up: ${soaked.map((t) => `${t.label} ${mb(t.idle.rss)} (high-water mark so far ${mb(t.idle.peak)})`).join("; ")}; bare Elysia ${mb(bareIdle.rss)}`);

const cpuAtStart = soaked.map((target) => readCpuMs(target.server.pid));
const started = performance.now();
const endAt = started + minutes * 60_000;
let minute = 0;
/** RSS at each minute after the first (each server, bare Elysia), for the slopes. */
const minuteSamples: { minute: number; rss: number[]; bare: number }[] = [];
const sampler = setInterval(() => {
  const rss = soaked.map((target) => {
    const now = readRss(target.server.pid).rss;
    target.sampledPeak = Math.max(target.sampledPeak, now);
    return now;
  });
  const elapsed = (performance.now() - started) / 60_000;
  if (elapsed >= minute + 1) {
    minute++;
    if (minute === 1) soaked.forEach((target, i) => (target.afterFirstMinute = rss[i]!));
    const bareRss = readRss(bare.pid!).rss;
    minuteSamples.push({ minute, rss, bare: bareRss });
    const each = soaked.map((target, i) => `${target.label} ${mb(rss[i]!).padStart(8)} ${((target.calls - target.callsAtMinute) / 60).toFixed(0)} calls/s`).join("   ");
    console.log(`  minute ${String(minute).padStart(2)}: RSS ${each}   (bare Elysia ${mb(bareRss)})`);
    for (const target of soaked) target.callsAtMinute = target.calls;
  }
}, 1000);

const bareClient = (async () => {
  while (performance.now() < endAt) await fetch(`http://127.0.0.1:${barePort}/health`).then((r) => r.arrayBuffer(), () => undefined);
})();
await Promise.all(
  soaked.flatMap((target) =>
    Array.from({ length: clients }, async () => {
      while (performance.now() < endAt) {
        try {
          await oneCall(target);
        } catch (error) {
          target.calls++;
          count(target, `network ${(error as Error).message.slice(0, 60)}`);
        }
      }
    }),
  ),
);
await bareClient;
clearInterval(sampler);
const atEnd = soaked.map((target) => readRss(target.server.pid));
const cpuPerCall = soaked.map((target, i) => (readCpuMs(target.server.pid) - cpuAtStart[i]!) / Math.max(1, target.calls));
const bareAtEnd = readRss(bare.pid!);
/**
 * RSS each second for 15 s after the load, then every 5 s to 40 s (threads, in brackets): the 5 s figure is the
 * target's; the curve shows what is still to come (the second extraction thread ends at 3 s, the last at 30 s).
 */
const afterLoad: string[][] = soaked.map(() => []);
const settled: number[] = soaked.map(() => 0);
const composition: string[] = soaked.map(() => "");
let bareSettled = 0;
for (let second = 1; second <= 40; second++) {
  await Bun.sleep(1000);
  if (second > 15 && second % 5 !== 0) continue;
  soaked.forEach((target, i) => {
    const rss = readRss(target.server.pid).rss;
    const threads = /Threads:\s+(\d+)/.exec(readFileSync(`/proc/${target.server.pid}/status`, "utf8"))?.[1];
    afterLoad[i]!.push(`${second}s ${(rss / MB).toFixed(0)} (${threads})`);
    if (second === 5) {
      settled[i] = rss;
      // What the resident size is made of: the executable's pages (file-backed) and memory of its own (anonymous).
      const status = readFileSync(`/proc/${target.server.pid}/status`, "utf8");
      const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? "0") * 1024;
      composition[i] = `${mb(kib("RssAnon"))} anonymous, ${mb(kib("RssFile"))} file-backed`;
    }
  });
  if (second === 5) bareSettled = readRss(bare.pid!).rss;
}
bare.kill();
const seconds = (performance.now() - started) / 1000 - 40;
const slope = (values: (p: (typeof minuteSamples)[number]) => number) => {
  const points = minuteSamples.filter((p) => p.minute > 1);
  if (points.length < 2) return NaN;
  const mx = points.reduce((sum, p) => sum + p.minute, 0) / points.length;
  const my = points.reduce((sum, p) => sum + values(p), 0) / points.length;
  const sxy = points.reduce((sum, p) => sum + (p.minute - mx) * (values(p) - my), 0);
  const sxx = points.reduce((sum, p) => sum + (p.minute - mx) ** 2, 0);
  return sxy / sxx / MB;
};

console.log(`\nload average ${loadavg()[0]!.toFixed(1)} at end`);
for (const [i, target] of soaked.entries()) {
  console.log(`\n${target.label} (${i === 0 ? binary || "src/main.ts" : reference}): ${target.calls} calls in ${(seconds / 60).toFixed(1)} min (${(target.calls / seconds).toFixed(0)}/s)`);
  console.log("answers:");
  for (const [key, n] of [...target.byStatus].sort((a, b) => b[1] - a[1])) console.log(`  ${key.padEnd(40)} ${n}`);
  const errors = [...target.byStatus].filter(([key]) => !/^[23]\d\d$/.test(key)).reduce((sum, [, n]) => sum + n, 0);
  const end = atEnd[i]!;
  console.log(`errors (≥ 400 or no answer): ${errors}`);
  console.log(`server CPU:              ${cpuPerCall[i]!.toFixed(2)} ms a call (every thread, during the load)`);
  console.log(`peak RSS:                ${mb(end.peak)} (kernel high-water mark; sampled max ${mb(target.sampledPeak)})   target < 200 MiB`);
  console.log(`RSS after first minute:  ${mb(target.afterFirstMinute)}`);
  console.log(`RSS at end of load:      ${mb(end.rss)}   ${(((end.rss - target.afterFirstMinute) / target.afterFirstMinute) * 100).toFixed(1)}% from the first minute (target within 10%)`);
  console.log(`RSS 5 s after the load:  ${mb(settled[i]!)} (idle after load; target < 120 MiB): ${composition[i]}`);
  console.log(`RSS after the load, MiB (threads): ${afterLoad[i]!.join(", ")}`);
  console.log(`RSS slope after minute 1: ${slope((p) => p.rss[i]!).toFixed(2)} MiB a minute (NaN with fewer than two minute samples after the first)`);
  console.log(`log: ${(statSync(target.logPath).size / MB).toFixed(1)} MiB`);
}
console.log(
  `\nbare Elysia, same run:   idle ${mb(bareIdle.rss)}, peak ${mb(bareAtEnd.peak)}, 5 s after the load ${mb(bareSettled)}, slope ${slope((p) => p.bare).toFixed(2)} MiB a minute; ours minus bare: peak ${mb(atEnd[0]!.peak - bareAtEnd.peak)}, idle after load ${mb(settled[0]! - bareSettled)}`,
);
if (reference) {
  const ref = soaked[1]!;
  console.log(
    `beside the reference:    peak ${mb(atEnd[0]!.peak)} against ${mb(atEnd[1]!.peak)}, 5 s after the load ${mb(settled[0]!)} against ${mb(settled[1]!)}, slope ${slope((p) => p.rss[0]!).toFixed(2)} against ${slope((p) => p.rss[1]!).toFixed(2)} MiB a minute, calls ${ours.calls} against ${ref.calls}, server CPU ${cpuPerCall[0]!.toFixed(2)} against ${cpuPerCall[1]!.toFixed(2)} ms a call`,
  );
}

for (const target of soaked) {
  await target.server.stop();
  const valveLine = readFileSync(target.logPath, "utf8").split("\n").find((line) => line.includes('"memory valve"'));
  if (valveLine) {
    const valve = JSON.parse(valveLine) as { collections: number; pauseMs: number; soft_limit_mb: number };
    console.log(`${target.label}'s memory valve (soft limit ${valve.soft_limit_mb} MiB): ${valve.collections} collections on the server's thread, ${valve.pauseMs} ms in all (${(valve.pauseMs / Math.max(1, valve.collections)).toFixed(0)} ms each)`);
  } else console.log(`${target.label}'s memory valve: no collection (or off)`);
}
await site.stop(true);
rmSync(work, { recursive: true, force: true });
process.exit(0);
