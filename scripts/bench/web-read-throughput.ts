/**
 * End-to-end `POST /v1/web/read` on loopback (issue 3): throughput and latency (p50/p95) under
 * 16 concurrent clients, the server's peak RSS, and its RSS over a bounded run of reads.
 *
 * The real service (startService, payments off, --unsafe-allow-loopback-targets, port 0, a file
 * data folder, info logging to a file) runs in a child process so the RSS figures are the
 * server's alone. This process serves the pages (the extraction dev set, decompressed; the test
 * fixtures when the dev set is absent) and runs the clients.
 *
 * Run: node_modules/.bin/bun scripts/bench/web-read-throughput.ts [--reads 10000] [--clients 16] [--pages DIR] [--format text|markdown] [--profile DIR]
 *        [--extract-workers N] (server's extraction threads; default one per core, 0 = on the server thread) [--smol] (server runs with bun --smol)
 *        [--server-args "--memory-soft-limit-mb 0"] (further server flags)
 *        [--binary PATH] (the server is that compiled executable, `PATH serve`, as shipped: bundled and minified, which a
 *        source run is not; its RSS is read from /proc, without forced collections or heap reports)
 *        [--reference PATH] (a second compiled executable, e.g. the previous main's build: the two take turns for
 *        [--rounds N] rounds (default 2) and each figure is printed beside the reference's from the same run)
 *        [--env K=V ...] [--reference-env K=V ...] (repeatable: variables added to the tested server's environment, or the
 *        reference's, e.g. JavaScriptCore's `BUN_JSC_*` options, which a process reads at its start: one binary against a copy of itself)
 * Every round also times extraction alone over the pages the reads used, between the two servers' turns (after the
 * server's when there is no reference), and prints each round's server CPU a read as a multiple of that round's
 * extraction alone a page (and the reference's beside it), then the median over rounds: what a read costs beyond
 * extracting its page. Why this is fair (extraction-alone.ts): the alone figure is taken the way the server's is,
 * the process CPU (/proc, every thread) of a fresh Bun process running the extractor bundled and minified with the
 * binary's options, on as many Worker threads as the server has extraction threads, after the same warm-up (each
 * page once), over as many extractions as the turn's reads in the same page order; so its JIT, collector and
 * two-threads-on-two-cores costs are counted as the server's are. With more than one extraction thread it is timed on one
 * thread too and that ratio printed in brackets: one thread alone pays one JIT and has the cores to itself, so it
 * costs less a page, and the ratio against it is the stricter one. It extracts the page's text only (no decoding,
 * hashing, cut or forced collections, which are the server's own work), and the process does nothing else. One
 * alone figure taken once at the end (the script's earlier way) fell under other load than the reads: on a
 * noisy machine the ratio ran from 1.41 to 1.75 where it was 1.28 on a quiet one.
 * Server CPU is also split by thread name (/proc/PID/task): extraction threads ("Worker"), the server's
 * thread, the engine's collector, JIT and allocator threads. The load (this process: page site and
 * clients) runs on the same cores, so its CPU per read is printed too.
 * Targets (2-core machine): ≥ 100 reads/s, peak RSS < 300 MB, no RSS growth over 10,000 reads.
 * It ends by timing Readability on happy-dom over the same pages (readability-reference.ts): the
 * issue measured ~27 ms a page on its machine, so that figure says how fast this run's machine was.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { readRss, servePages } from "./dev-set.ts";
import { bundleExtractionAlone, measureExtractionAlone } from "./extraction-alone.ts";
import { readCpuMs, readThreadCpuMs, threadCpuPerRead } from "./proc-cpu.ts";
import { envLabel, parseEnvPairs, repeatedOption } from "./server-process.ts";

const MIB = 1024 * 1024;

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

// ── child: the service under test ───────────────────────────────────────────────────────────────
interface ChildReport {
  rss: number;
  heapUsed: number;
}
type ToChild = "gc" | "heap" | "stop";
type FromChild = { ready: string } | ({ gc: true } & ChildReport) | { heap: true; capacity: number };

async function serveAsChild(dataDir: string, extractWorkers: string): Promise<void> {
  const { startService } = await import("../../src/boot.ts");
  const { loadConfig } = await import("../../src/config.ts");
  const config = loadConfig({
    argv: serverArgs(dataDir, extractWorkers, "0"),
    env: {},
  });
  const service = await startService(config);
  const send = (message: FromChild) => process.send?.(message);
  process.on("message", async (message: ToChild) => {
    if (message === "gc") {
      Bun.gc(true);
      const usage = process.memoryUsage();
      send({ gc: true, rss: usage.rss, heapUsed: usage.heapUsed });
    } else if (message === "heap") {
      // The server thread's JS heap as it stands (no collection): what its own pacing lets it grow to.
      // memoryUsage().heapTotal costs microseconds; heapStats() walks the heap (~35 ms a call) and,
      // sampled every 100 ms, took a quarter of the server thread's CPU and skewed every figure.
      send({ heap: true, capacity: process.memoryUsage().heapTotal });
    } else if (message === "stop") {
      await service.close();
      process.exit(0);
    }
  });
  send({ ready: service.server.url.href });
}

// ── parent: pages, clients, measurements ────────────────────────────────────────────────────────
function loadPages(dir: string): { name: string; bytes: Uint8Array<ArrayBuffer> }[] {
  const files = readdirSync(dir).filter((f) => /\.html?(\.gz)?$/.test(f)).sort();
  return files.map((name) => {
    const raw = readFileSync(join(dir, name));
    return { name, bytes: new Uint8Array(name.endsWith(".gz") ? gunzipSync(raw) : raw) };
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const mb = (bytes: number) => `${(bytes / MIB).toFixed(1)} MB`;

interface ServerUnderTest {
  pid: number;
  url: string;
  /** RSS after a full collection on the server's thread (the binary cannot be asked: RSS as it stands, heapUsed NaN). */
  gcAndMeasure(): Promise<{ rss: number; peak: number; heapUsed: number }>;
  /** The server thread's JS heap capacity as it stands, when the server can report it. */
  heapCapacity?(): Promise<number>;
  stop(): Promise<void>;
}

/** --server-args "...": further flags for the server (e.g. "--memory-soft-limit-mb 0"), handed to a server child in its environment. */
const extraServerArgs = () => (process.env.TB_BENCH_SERVER_ARGS ?? "").split(/\s+/).filter(Boolean);

const serverArgs = (dataDir: string, extractWorkers: string, port: string) => [
  "--host", "127.0.0.1", "--port", port, "--payments", "off", "--unsafe-allow-loopback-targets", "--data", dataDir, "--rate-limit-per-min", "1000000000",
  ...(extractWorkers !== "" ? ["--extract-workers", extractWorkers] : []),
  ...extraServerArgs(),
];

/** The service from source in a child Bun process, driven over IPC (forced GC, heap reports). */
async function startSourceServer(dataDir: string, extractWorkers: string, logFd: number, profileDir: string, smol: boolean, env: Record<string, string>): Promise<ServerUnderTest> {
  const child: ChildProcess = fork(import.meta.path, ["--serve-child", dataDir, extractWorkers], {
    execPath: process.execPath,
    env: { ...process.env, ...env },
    // --profile DIR: the server writes a CPU profile (Markdown) there when it stops.
    execArgv: [...(profileDir ? ["--cpu-prof-md", `--cpu-prof-dir=${profileDir}`] : []), ...(smol ? ["--smol"] : [])],
    stdio: ["ignore", logFd, "inherit", "ipc"],
  });
  const pending: ((message: FromChild) => void)[] = [];
  child.on("message", (message: FromChild) => pending.shift()?.(message));
  const nextMessage = () => new Promise<FromChild>((resolve) => pending.push(resolve));
  const ready = await nextMessage();
  if (!("ready" in ready)) throw new Error("child did not start");
  const pid = child.pid!;
  return {
    pid,
    url: ready.ready,
    async gcAndMeasure() {
      child.send("gc" satisfies ToChild);
      const report = await nextMessage();
      return { ...readRss(pid), heapUsed: "heapUsed" in report ? report.heapUsed : NaN };
    },
    async heapCapacity() {
      child.send("heap" satisfies ToChild);
      const report = await nextMessage();
      return "heap" in report ? report.capacity : NaN;
    },
    async stop() {
      child.send("stop" satisfies ToChild);
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

/** The compiled executable (`tollbooth serve`), as shipped: bundled, minified, its worker embedded. */
async function startBinaryServer(binary: string, dataDir: string, extractWorkers: string, logFd: number, env: Record<string, string>): Promise<ServerUnderTest> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = String(probe.port);
  await probe.stop(true);
  const child = spawn(binary, ["serve", ...serverArgs(dataDir, extractWorkers, port)], { stdio: ["ignore", logFd, "inherit"], env: { ...process.env, ...env } });
  const url = `http://127.0.0.1:${port}/`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`${binary} exited with ${child.exitCode}`);
    const up = await fetch(new URL("/v1/capabilities", url)).then((r) => r.ok, () => false);
    if (up) break;
    if (tries > 200) throw new Error(`${binary} did not start`);
    await Bun.sleep(50);
  }
  const pid = child.pid!;
  return {
    pid,
    url,
    gcAndMeasure: async () => ({ ...readRss(pid), heapUsed: NaN }),
    async stop() {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

interface RunOptions {
  reads: number;
  clients: number;
  format: string;
  extractWorkers: string;
  smol: boolean;
  profileDir: string;
  pagesDir: string;
}

/** One server's figures, for the comparison beside a reference binary. */
interface RunFigures {
  server: string;
  rate: number;
  cpuPerRead: number;
  /** The pages every read of this run used (those the server did not refuse in warm-up). */
  usable: number[];
}

/** Starts a server (the binary at `binary`, else the source in a child), reads the pages, prints its figures and stops it. */
async function measureServer(binary: string, env: Record<string, string>, pages: { bytes: Uint8Array }[], site: ReturnType<typeof Bun.serve>, options: RunOptions): Promise<RunFigures> {
  const { reads, clients, format, extractWorkers, smol, profileDir, pagesDir } = options;
  const work = mkdtempSync(join(tmpdir(), "tb-bench-read-"));
  const logFd = openSync(join(work, "server.log"), "w");
  const server = binary ? await startBinaryServer(binary, join(work, "data"), extractWorkers, logFd, env) : await startSourceServer(join(work, "data"), extractWorkers, logFd, profileDir, smol, env);
  const endpoint = new URL("/v1/web/read", server.url).href;
  const pid = server.pid;
  const gcAndMeasure = server.gcAndMeasure;

  const siteUrl = (i: number) => `http://127.0.0.1:${site.port}/p/${i}.html`;
  const body = (i: number) => JSON.stringify({ url: siteUrl(i), format });
  async function readOnce(i: number): Promise<{ status: number; error?: string; ms: number }> {
    const started = performance.now();
    const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: body(i) });
    const json = (await res.json()) as { ok: boolean; error?: string };
    return { status: res.status, ...(json.ok ? {} : { error: json.error }), ms: performance.now() - started };
  }

  const idle = readRss(pid);
  console.log(
    `pages: ${pages.length} from ${pagesDir}; reads: ${reads}; clients: ${clients}; format: ${format}; extraction threads: ${extractWorkers || "default (one per core)"}${smol ? "; server --smol" : ""}; server: ${binary || "source, in a child bun"}${envLabel(env)}`,
  );
  console.log(`server idle RSS: ${mb(idle.rss)}`);

  // Warm-up: every page once (16 at a time); pages the engine refuses are reported and left out.
  const usable: number[] = [];
  const refused = new Map<string, number>();
  for (let start = 0; start < pages.length; start += clients) {
    const batch = pages.slice(start, start + clients).map((_, k) => start + k);
    const results = await Promise.all(batch.map((i) => readOnce(i)));
    results.forEach((r, k) => {
      if (r.status === 200) usable.push(batch[k]!);
      else refused.set(r.error ?? `http_${r.status}`, (refused.get(r.error ?? `http_${r.status}`) ?? 0) + 1);
    });
  }
  if (refused.size > 0) console.log(`refused in warm-up (left out): ${[...refused].map(([c, n]) => `${c}×${n}`).join(", ")}`);
  if (usable.length === 0) throw new Error("no page could be read");

  const checkpoints: { reads: number; rss: number; heapUsed: number }[] = [];
  checkpoints.push({ reads: 0, ...(await gcAndMeasure()) });
  const every = Math.max(100, Math.floor(reads / 10));
  let issued = 0;
  let done = 0;
  let nextCheckpoint = every;
  let checkpointing: Promise<void> = Promise.resolve();
  let peakSampled = 0;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    peakSampled = Math.max(peakSampled, readRss(pid).rss);
    void server.heapCapacity?.().then((capacity) => void (peakHeap = Math.max(peakHeap, capacity)));
  }, 100);
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const loadBefore = loadavg()[0]!;
  const cpuBefore = readCpuMs(pid);
  const threadsBefore = readThreadCpuMs(pid);
  const loadCpuBefore = readCpuMs(process.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (issued < reads) {
        const page = usable[issued++ % usable.length]!;
        const r = await readOnce(page);
        latencies.push(r.ms);
        if (r.status !== 200) failures.set(r.error ?? `http_${r.status}`, (failures.get(r.error ?? `http_${r.status}`) ?? 0) + 1);
        done++;
        if (done >= nextCheckpoint) {
          const at = nextCheckpoint;
          nextCheckpoint += every;
          checkpointing = checkpointing.then(async () => void checkpoints.push({ reads: at, ...(await gcAndMeasure()) }));
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuPerRead = (readCpuMs(pid) - cpuBefore) / reads;
  const byThread = threadCpuPerRead(threadsBefore, readThreadCpuMs(pid), reads);
  const loadCpuPerRead = (readCpuMs(process.pid) - loadCpuBefore) / reads;
  clearInterval(sampler);
  await checkpointing;
  const end = readRss(pid);

  latencies.sort((a, b) => a - b);
  const rate = reads / seconds;
  console.log(`\nend-to-end POST /v1/web/read, ${clients} concurrent clients, ${reads} reads over ${usable.length} pages`);
  console.log(`  throughput   ${rate.toFixed(1)} reads/s   (target ≥ 100)`);
  console.log(`  latency      p50 ${percentile(latencies, 50).toFixed(1)} ms   p95 ${percentile(latencies, 95).toFixed(1)} ms   max ${latencies.at(-1)!.toFixed(1)} ms`);
  console.log(`  server CPU   ${cpuPerRead.toFixed(1)} ms per read (all threads)`);
  console.log(`    by thread  ${byThread} (ms per read)`);
  console.log(`  load CPU     ${loadCpuPerRead.toFixed(1)} ms per read (this process: page site and clients, on the same cores)`);
  console.log(`  machine load ${loadBefore.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end (1-min load average; ${navigator.hardwareConcurrency} cores; other work skews the figures)`);
  if (failures.size > 0) console.log(`  failures     ${[...failures].map(([c, n]) => `${c}×${n}`).join(", ")}`);
  console.log(`  peak RSS     ${mb(end.peak)} (kernel high-water mark; sampled max under load ${mb(peakSampled)})   (target < 300 MB)`);
  if (server.heapCapacity) console.log(`  server thread's JS heap: peak capacity ${mb(peakHeap)} under load (sampled every 100 ms; extraction threads' heaps not included)`);
  console.log(binary ? `  RSS by reads done (no forced GC: the binary takes no commands):` : `  RSS after forced GC, by reads done (JS heap in brackets):`);
  for (const c of checkpoints) console.log(`    ${String(c.reads).padStart(6)}  ${mb(c.rss).padStart(9)}${binary ? "" : `  [${mb(c.heapUsed)}]`}`);
  // Growth: the last checkpoint against the first one after the run's first tenth (allocator and JIT settled).
  const base = checkpoints[1] ?? checkpoints[0]!;
  const last = checkpoints.at(-1)!;
  const growth = last.rss - base.rss;
  const perThousand = last.reads > base.reads ? growth / ((last.reads - base.reads) / 1000) : 0;
  console.log(
    `  RSS growth   ${mb(growth)} from ${base.reads} to ${last.reads} reads (${mb(perThousand)} per 1,000 reads${binary ? "" : `; JS heap ${mb(last.heapUsed - base.heapUsed)}`})`,
  );

  await server.stop();
  closeSync(logFd);
  rmSync(work, { recursive: true, force: true });
  return { server: binary || "source", rate, cpuPerRead, usable };
}

async function runParent(): Promise<void> {
  process.env.TB_BENCH_SERVER_ARGS = flag("server-args", "");
  const binary = flag("binary", "");
  const reference = flag("reference", "");
  const testedEnv = parseEnvPairs(repeatedOption("env"));
  const referenceEnv = parseEnvPairs(repeatedOption("reference-env"));
  const rounds = Number(flag("rounds", reference ? "2" : "1"));
  const devSet = "/work/shared/bench/extraction/data/html";
  const options: RunOptions = {
    reads: Number(flag("reads", "10000")),
    clients: Number(flag("clients", "16")),
    format: flag("format", "text"),
    profileDir: flag("profile", ""),
    extractWorkers: flag("extract-workers", ""),
    smol: process.argv.includes("--smol"),
    pagesDir: flag("pages", existsSync(devSet) ? devSet : join(import.meta.dir, "..", "..", "test", "fixtures", "pages")),
  };
  const pages = loadPages(options.pagesDir);
  if (pages.length === 0) throw new Error(`no .html or .html.gz pages in ${options.pagesDir}`);
  const site = servePages(pages.map((page) => page.bytes));

  // With --reference, the two servers take turns (reference first in even rounds, second in odd ones),
  // so a change in the machine's load falls on both. Extraction alone runs in every round too, between the
  // two turns (after the turn when there is no reference), so each round's ratio is of figures taken under
  // that round's load.
  const alone = await bundleExtractionAlone();
  const extractionThreads = options.extractWorkers === "" ? availableParallelism() : Math.max(1, Number(options.extractWorkers));
  const runs: { role: "tested" | "reference"; figures: RunFigures }[] = [];
  /** Extraction alone a page on as many threads as the server's, each round: what the ratio is taken against. */
  const aloneMs: number[] = [];
  /** The same on one thread (when the server has more): no second thread beside it on the cores, one engine's JIT. */
  const aloneOneThreadMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order: ("tested" | "reference")[] = !reference ? ["tested"] : round % 2 === 0 ? ["reference", "tested"] : ["tested", "reference"];
    for (const [turn, role] of order.entries()) {
      if (reference) console.log(`\n── round ${round + 1}/${rounds}: ${role} ${role === "reference" ? reference : binary || "source"}`);
      runs.push({ role, figures: await measureServer(role === "reference" ? reference : binary, role === "reference" ? referenceEnv : testedEnv, pages, site, options) });
      if (turn === 0) {
        const usable = runs.at(-1)!.figures.usable;
        const job = {
          html: usable.map((i) => new TextDecoder().decode(pages[i]!.bytes)),
          urls: usable.map((i) => `http://127.0.0.1:${site.port}/p/${i}.html`),
          markdown: options.format === "markdown",
          extractions: options.reads,
        };
        for (const threads of extractionThreads > 1 ? [extractionThreads, 1] : [1]) {
          const measured = await measureExtractionAlone(alone.path, job, threads);
          (threads === extractionThreads ? aloneMs : aloneOneThreadMs).push(measured.msPerPage);
          console.log(`\n── round ${round + 1}/${rounds}: extraction alone ${measured.msPerPage.toFixed(2)} ms CPU a page (${options.reads} extractions over ${usable.length} pages on ${threads} thread${threads > 1 ? "s" : ""}; machine load ${loadavg()[0]!.toFixed(1)})`);
          console.log(`    by thread  ${measured.byThread} (ms a page)`);
        }
      }
    }
  }
  alone.remove();
  const tested = runs.filter((run) => run.role === "tested").map((run) => run.figures);
  const referenceRuns = runs.filter((run) => run.role === "reference").map((run) => run.figures);
  if (reference) {
    console.log(`\nthis server beside the reference (${reference}), same run, ${rounds} alternating rounds:`);
    tested.forEach((t, k) => {
      const r = referenceRuns[k]!;
      console.log(
        `  round ${k + 1}: ${t.rate.toFixed(1)} vs ${r.rate.toFixed(1)} reads/s (${(t.rate / r.rate).toFixed(2)}×), server CPU ${t.cpuPerRead.toFixed(2)} vs ${r.cpuPerRead.toFixed(2)} ms a read (${(t.cpuPerRead / r.cpuPerRead).toFixed(2)}×)`,
      );
    });
    const sum = (figures: RunFigures[], key: "rate" | "cpuPerRead") => figures.reduce((total, f) => total + f[key], 0);
    console.log(
      `  all rounds: throughput ${(sum(tested, "rate") / sum(referenceRuns, "rate")).toFixed(2)}× the reference's, server CPU a read ${(sum(tested, "cpuPerRead") / sum(referenceRuns, "cpuPerRead")).toFixed(2)}× (target ≤ 1.00)`,
    );
  }

  // A read's server CPU against extraction alone of the same round: what a read costs beyond extracting its page.
  console.log(`\nserver CPU a read against extraction alone (a process that only extracts the same pages on as many threads as the server's, same round; see the header):`);
  const ratios = (figures: RunFigures[], alone: number[]) => figures.map((f, k) => f.cpuPerRead / alone[k]!);
  const testedRatios = ratios(tested, aloneMs);
  const referenceRatios = ratios(referenceRuns, aloneMs);
  const oneThreadRatios = ratios(tested, aloneOneThreadMs);
  tested.forEach((t, k) => {
    const r = referenceRuns[k];
    const oneThread = aloneOneThreadMs[k];
    console.log(
      `  round ${k + 1}: server ${t.cpuPerRead.toFixed(2)} ms a read, alone ${aloneMs[k]!.toFixed(2)} ms a page: ${testedRatios[k]!.toFixed(2)}×${r ? `   (reference ${r.cpuPerRead.toFixed(2)} ms: ${referenceRatios[k]!.toFixed(2)}×)` : ""}${oneThread !== undefined ? `   [one thread alone ${oneThread.toFixed(2)} ms: ${oneThreadRatios[k]!.toFixed(2)}×]` : ""}`,
    );
  });
  console.log(
    `  median over rounds: ${median(testedRatios).toFixed(2)}× extraction alone (target ≤ 1.5)${reference ? `; reference ${median(referenceRatios).toFixed(2)}×` : ""}${oneThreadRatios.length ? `; against one thread alone ${median(oneThreadRatios).toFixed(2)}×` : ""}`,
  );

  // How fast this machine was in this run, on the issue's own reference (with the server stopped).
  // Imported here, not at the top: the server child runs this file too and must not load happy-dom.
  const { readabilityMedianMs } = await import("./readability-reference.ts");
  const gauge = await readabilityMedianMs(pages.map((page) => new TextDecoder().decode(page.bytes)));
  console.log(`  machine      Readability on happy-dom, median ${gauge.toFixed(1)} ms a page over these pages (the issue measured ~27 ms on its machine)`);
  await site.stop(true);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

if (process.argv[2] === "--serve-child") await serveAsChild(process.argv[3]!, process.argv[4] ?? "");
else await runParent();
