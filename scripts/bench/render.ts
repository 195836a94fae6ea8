/**
 * render:true benchmark, end to end: loopback pages that build their content with JavaScript, read
 * through the real service's `POST /v1/web/read {render:true}` with the renderer at its default
 * pool, then the same pages without render in the same run. Prints pages/s and p50/p95 latency
 * (sequential and at pool concurrency), the first render after start (browser launch included),
 * the machine's load average, and the peak RSS and PSS summed over the service's process tree only.
 *
 * The service (startService: payments off, --unsafe-allow-loopback-targets, port 0, a temporary
 * data folder, logs to a file) runs in a child Bun process, so the tree measured is that process
 * and the Chromium it launches. This process serves the fixture pages, runs the clients and samples
 * /proc; none of that is counted.
 * Also a viewport web/screenshot of the simple page, one at a time, and the browser's memory over
 * many renders (its tree's RSS after 50 renders and after 500, both taken idle).
 * Usage: bun scripts/bench/render.ts [rounds=20] [--growth 500 (0: skip)] [--browser /path/to/chromium] [--service-arg=--flag=value ...]
 * Targets (issue 43, 2-core machine), each printed with PASS/FAIL at the end: render p50 < 400 ms one at a
 * time and < 600 ms two at a time (the simple page), >= 8 pages/s at four or more at once, viewport
 * screenshot p50 < 500 ms, the first render after start < 1 s (once the start's warm-up is done; how long
 * that took is printed too), the browser tree's RSS after 500 renders <= 1.10x after 50. Each row also
 * gives its ratio to the plain web/read of the same pages in the same run.
 */
import { fork } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRenderSite } from "../../test/web/render/render-site.ts";
import { listProcessTree, readDescendantsBytes, readTreeCpuMs, readTreeRssBytes, sampleTreeRss } from "./render-rss.ts";

const PAGES = ["/script-built.html", "/catalogue.html", "/deferred.html"];

// ── child: the service under test ───────────────────────────────────────────────────────────────
const serverArgs = (dataDir: string, browserPath: string, extra: string[]) => [
  ...extra,
  "--host", "127.0.0.1", "--port", "0", "--payments", "off", "--unsafe-allow-loopback-targets", "--data", dataDir, "--rate-limit-per-min", "1000000000",
  ...(browserPath ? ["--browser-path", browserPath] : []),
];

async function serveAsChild(dataDir: string, browserPath: string, extra: string[]): Promise<void> {
  const { startService } = await import("../../src/boot.ts");
  const { loadConfig } = await import("../../src/config.ts");
  const service = await startService(loadConfig({ argv: serverArgs(dataDir, browserPath, extra), env: {} }));
  process.on("message", async (message: string) => {
    if (message !== "stop") return;
    await service.close();
    process.exit(0);
  });
  const started = performance.now();
  process.send?.({ ready: service.server.url.href, render: service.renderStatus() });
  // The warm-up startService began (--render-warm on): the same promise, settled once a render would find the browser, a context and the extraction ready.
  await service.warmRenderer();
  process.send?.({ warmMs: performance.now() - started });
}

// ── parent: pages, clients, measurements ────────────────────────────────────────────────────────
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

interface RunResult {
  latencies: number[];
  wallMs: number;
  failures: number;
}

interface ReadReply {
  ok: boolean;
  error?: string;
  message?: string;
  text?: string;
  javascript_rendered?: boolean;
  image_sha256?: string;
}

type Kind = "read" | "render" | "screenshot";

async function runParent(): Promise<void> {
  const args = process.argv.slice(2);
  const browserFlag = args.indexOf("--browser");
  const browserPath = browserFlag >= 0 ? (args[browserFlag + 1] ?? "") : "";
  const growthFlag = args.indexOf("--growth");
  const growth = growthFlag >= 0 ? Number(args[growthFlag + 1]) : 500;
  const rounds = Number(args.find((a, i) => /^\d+$/.test(a) && i !== growthFlag + 1) ?? 20);
  // --service-arg=--extract-workers=1 (repeatable): a service setting to compare against the default.
  const serviceArgs = args.filter((a) => a.startsWith("--service-arg=")).flatMap((a) => {
    const flag = a.slice("--service-arg=".length);
    const eq = flag.indexOf("=");
    return eq > 0 ? [flag.slice(0, eq), flag.slice(eq + 1)] : [flag];
  });

  const site = await startRenderSite();
  const work = mkdtempSync(join(tmpdir(), "tb-bench-render-"));
  const logFd = openSync(join(work, "server.log"), "w");
  const child = fork(import.meta.path, ["--serve-child", join(work, "data"), browserPath, ...serviceArgs], {
    execPath: process.execPath,
    stdio: ["ignore", logFd, "inherit", "ipc"],
  });
  const messages: unknown[] = [];
  const waiters: ((m: unknown) => void)[] = [];
  child.on("message", (m) => {
    const waiter = waiters.shift();
    if (waiter) waiter(m);
    else messages.push(m);
  });
  const nextMessage = <T>() =>
    new Promise<T>((resolve, reject) => {
      if (messages.length > 0) return resolve(messages.shift() as T);
      waiters.push((m) => resolve(m as T));
      child.once("exit", (code) => reject(new Error(`service exited with ${code}`)));
    });
  const ready = await nextMessage<{ ready: string; render: string }>();
  const servicePid = child.pid!;
  const endpoint = new URL("/v1/web/read", ready.ready).href;
  const screenshotEndpoint = new URL("/v1/web/screenshot", ready.ready).href;
  console.log(`service: pid ${servicePid} at ${ready.ready}; render ${ready.render}`);
  if (!ready.render.startsWith("on")) {
    child.send("stop");
    process.exitCode = 1;
    return;
  }

  /** A plain read, a rendered read, or a viewport screenshot (web/screenshot) of `url`. */
  async function readOnce(url: string, kind: Kind): Promise<boolean> {
    const render = kind === "render";
    const res = await fetch(kind === "screenshot" ? screenshotEndpoint : endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(kind === "screenshot" ? { url, viewport: { width: 1280, height: 800 } } : { url, format: "text", max_chars: 20_000, render }),
      signal: AbortSignal.timeout(30_000),
    });
    const reply = (await res.json()) as ReadReply;
    if (kind === "screenshot") return reply.ok && typeof reply.image_sha256 === "string";
    if (!reply.ok) {
      console.error(`  ${url}: ${res.status} ${reply.error} ${reply.message ?? ""}`);
      return false;
    }
    // A rendered page whose script has not finished still says "Loading…" (deferred.html).
    return !render || (reply.javascript_rendered === true && !(reply.text ?? "").includes("Loading…"));
  }

  async function run(urls: string[], concurrency: number, kind: Kind): Promise<RunResult> {
    const latencies: number[] = [];
    let failures = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < urls.length) {
          const url = urls[next++]!;
          const t = performance.now();
          const ok = await readOnce(url, kind).catch((error: Error) => (console.error(`  ${url}: ${error.message}`), false));
          if (!ok) failures++;
          latencies.push(performance.now() - t);
        }
      }),
    );
    return { latencies, wallMs: performance.now() - started, failures };
  }

  const rate = (r: RunResult) => (r.latencies.length * 1000) / r.wallMs;
  const p50 = (r: RunResult) => percentile(r.latencies, 50);
  function report(label: string, result: RunResult): RunResult {
    const { latencies, failures } = result;
    console.log(
      `${label.padEnd(34)} ${String(latencies.length).padStart(4)} pages  ${rate(result).toFixed(1).padStart(6)} pages/s  p50 ${p50(result).toFixed(0).padStart(5)} ms  p95 ${percentile(latencies, 95).toFixed(0).padStart(5)} ms${failures ? `  FAILURES ${failures}` : ""}`,
    );
    return result;
  }

  const pool = 2; // two at once: the row beside the 2-at-once target
  const urls = Array.from({ length: rounds }, () => PAGES.map((p) => site.url(p))).flat();
  const simple = Array.from({ length: rounds }, () => site.url("/script-built.html"));

  const idle = readTreeRssBytes(servicePid);
  console.log(`load average before the run: ${loadAverage()}`);
  console.log(`service idle at start (the browser launching with --render-warm on): RSS ${mib(idle.bytes)}, PSS ${mib(idle.pssBytes)} (${idle.processes} process)`);
  const rss = sampleTreeRss(servicePid);
  // --render-warm on: the browser, a ready context (its renderer warmed) and the extraction threads start off the start's clock.
  const { warmMs } = await nextMessage<{ warmMs: number }>();
  console.log(`warm-up done (browser, a ready context, extraction) ${warmMs.toFixed(0)} ms after the service said it was ready`);
  // This process serves the pages and runs the client: its own first requests (the site's handler, fetch) are
  // made before the clock starts, so the figure is the service's. The service is asked for nothing.
  await (await fetch(site.url("/script-built.html"))).text();
  await (await fetch(site.url("/data.json"))).text();
  let t = performance.now();
  rss.phase("first render");
  const first = await run([site.url("/script-built.html")], 1, "render");
  const firstMs = performance.now() - t;
  console.log(`first render after start, once warm: ${firstMs.toFixed(0)} ms${first.failures ? "  FAILED" : ""} (a render arriving during the warm-up waits for it)`);

  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
  /** A caller at a time, with a short gap between calls (the spare context is ready again). */
  async function oneAtATime(pages: string[], kind: Kind): Promise<RunResult> {
    const total: RunResult = { latencies: [], wallMs: 0, failures: 0 };
    for (const url of pages) {
      const r = await run([url], 1, kind);
      total.latencies.push(...r.latencies);
      total.wallMs += r.wallMs;
      total.failures += r.failures;
      await pause();
    }
    return total;
  }
  // The browser's memory over many renders: its tree (idle) once 50 renders are done (after the row that
  // reaches 50), and after `growth` (the rest rendered 4 at once once the rows are done).
  /** Renders done since start (the first render, the rows, the screenshots). */
  let rendered = 1;
  const growthRows: { at: number; bytes: number; pssBytes: number; processes: number }[] = [];
  const idleTree = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const row = { at: rendered, ...readDescendantsBytes(servicePid) };
    growthRows.push(row);
    console.log(`  browser tree after ${row.at} renders (idle): RSS ${mib(row.bytes)}, PSS ${mib(row.pssBytes)} over ${row.processes} processes (RSS/PSS MiB: ${row.breakdown.join(", ")})`);
  };
  /** CPU ms per page of the service's tree (service and browser) in the 4-at-once row: load on the machine slows it far less than it slows wall time. */
  let cpuPerRender = Number.NaN;
  const row = async (label: string, result: () => Promise<RunResult>) => {
    rss.phase(label);
    const cpuBefore = readTreeCpuMs(servicePid);
    const done = report(label, await result());
    const cpuMs = (readTreeCpuMs(servicePid) - cpuBefore) / Math.max(1, done.latencies.length);
    // A browser replaced during the row (--render-restart-after) takes its CPU out of the tree until the service reaps it.
    console.log(`${"".padEnd(34)} CPU of the service's tree: ${cpuMs > 0 ? `${cpuMs.toFixed(0)} ms a page` : "n/a (the browser was replaced during the row)"}`);
    if (label === "render, simple page, 4 at once") cpuPerRender = cpuMs;
    rendered += done.latencies.length;
    if (growth > 0 && growthRows.length === 0 && rendered >= 50) await idleTree();
    return done;
  };
  const one = await row("render, simple page, 1 at a time", () => oneAtATime(simple, "render"));
  const two = await row("render, simple page, 2 at once", () => run(simple, 2, "render"));
  const four = await row("render, simple page, 4 at once", () => run(simple, 4, "render"));
  const kinds = await row(`render, 3 page kinds, ${pool} at once`, () => run(urls, pool, "render"));
  const ten = await row("render, 3 page kinds, 10 at once", () => run(urls, 10, "render"));
  const shot = await row("screenshot 1280x800, 1 at a time", () => oneAtATime(simple, "screenshot"));
  if (growth > 0) {
    const upTo = async (count: number) => {
      if (rendered < count) await row(`render, simple page, 4 at once, up to ${count}`, () => run(Array.from({ length: count - rendered }, () => site.url("/script-built.html")), 4, "render"));
    };
    await upTo(50);
    await upTo(Math.max(growth, rendered + 50));
    await idleTree();
  }
  const peak = rss.stop();
  const readOne = report("no render, simple page, 1 at a time", await run(simple, 1, "read"));
  const readTwo = report("no render, simple page, 2 at once", await run(simple, 2, "read"));
  const readFour = report("no render, simple page, 4 at once", await run(simple, 4, "read"));
  const readKinds = report("no render, 3 page kinds, 10 at once", await run(urls, 10, "read"));
  console.log(`load average after the run: ${loadAverage()}`);

  console.log(
    `peak RSS of the service's process tree (sum of RSS): ${mib(peak.peakBytes)} = ${mb(peak.peakBytes)} over up to ${peak.peakProcesses} processes (target < 800 MB)`,
  );
  console.log(`  at the RSS peak (renders: ${peak.peakPhase}): ${peak.peakBreakdown.join(", ")}`);
  console.log(`peak PSS of the service's process tree (shared pages split): ${mib(peak.peakPssBytes)} = ${mb(peak.peakPssBytes)}`);
  console.log(`peak RSS of the service's own process (Bun, its threads) during the renders: ${mib(peak.rootPeakBytes)}`);

  // The issue's targets, each with its reference in this run: the plain web/read of the same pages.
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const x = (a: number, b: number) => `${(a / b).toFixed(0)}x`;
  console.log("\ntargets (issue 43), 2 cores; reference: the same pages without render, this run");
  const target = (ok: boolean, text: string) => console.log(`  ${verdict(ok)}  ${text}`);
  target(p50(one) < 400 && !one.failures, `render p50 one at a time ${p50(one).toFixed(0)} ms < 400 ms   (web/read p50 ${p50(readOne).toFixed(0)} ms; render/read ${x(p50(one), Math.max(1, p50(readOne)))})`);
  target(p50(two) < 600 && !two.failures, `render p50 two at a time ${p50(two).toFixed(0)} ms < 600 ms   (web/read p50 ${p50(readTwo).toFixed(0)} ms; render/read ${x(p50(two), Math.max(1, p50(readTwo)))})`);
  target(rate(four) >= 8 && !four.failures, `renders 4 at once ${rate(four).toFixed(1)} pages/s >= 8   (web/read ${rate(readFour).toFixed(0)} pages/s; read/render ${x(rate(readFour), rate(four))})`);
  console.log(`        (CPU ${cpuPerRender.toFixed(0)} ms a render in that row: 2 idle cores could do at most ${(2000 / cpuPerRender).toFixed(1)} pages/s)`);
  target(rate(ten) >= 8 && !ten.failures, `renders 10 at once (3 page kinds) ${rate(ten).toFixed(1)} pages/s >= 8   (web/read ${rate(readKinds).toFixed(0)} pages/s; read/render ${x(rate(readKinds), rate(ten))})`);
  target(p50(shot) < 500 && !shot.failures, `viewport screenshot p50 ${p50(shot).toFixed(0)} ms < 500 ms   (web/read p50 ${p50(readOne).toFixed(0)} ms)`);
  target(firstMs < 1000 && !first.failures, `first render after start ${firstMs.toFixed(0)} ms < 1000 ms   (once the warm-up is done: ${warmMs.toFixed(0)} ms after ready)`);
  if (growthRows.length === 2) {
    const [early, late] = growthRows as [(typeof growthRows)[0], (typeof growthRows)[0]];
    target(
      late.bytes <= early.bytes * 1.1,
      `browser tree RSS after ${late.at} renders ${mib(late.bytes)} <= 1.10x after ${early.at} (${mib(early.bytes)}): ${(late.bytes / early.bytes).toFixed(2)}x (PSS ${(late.pssBytes / early.pssBytes).toFixed(2)}x)`,
    );
  } else console.log("  ----  browser tree RSS after 500 renders: not measured (--growth 0)");
  console.log(`  (no target) peak RSS ${mib(peak.peakBytes)}, PSS ${mib(peak.peakPssBytes)} of the whole tree, service included; load average ${loadAverage()}`);

  const treeBeforeStop = listProcessTree(servicePid);
  child.send("stop");
  await new Promise((resolve) => child.once("exit", resolve));
  closeSync(logFd);
  await site.stop();
  rmSync(work, { recursive: true, force: true });
  // Chromium's last children exit just after the service; give them a moment. A zombie has exited.
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  let left = treeBeforeStop.filter(alive);
  for (let waited = 0; left.length > 0 && waited < 3000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = left.filter(alive);
  }
  console.log(`after the service stopped: ${left.length} of its ${treeBeforeStop.length} process(es) left${left.length ? ` (${left.join(", ")})` : ""}`);
}

if (process.argv[2] === "--serve-child") await serveAsChild(process.argv[3]!, process.argv[4] ?? "", process.argv.slice(5));
else await runParent();
