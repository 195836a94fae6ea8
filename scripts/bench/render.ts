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
 * Also a viewport web/screenshot of the simple page, one at a time.
 * Usage: bun scripts/bench/render.ts [rounds=20] [--browser /path/to/chromium] [--service-arg=--flag=value ...]
 * Targets (2-core machine): p50 < 400 ms for the simple script-built page, peak RSS < 800 MB.
 */
import { fork } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRenderSite } from "../../test/web/render/render-site.ts";
import { listProcessTree, readTreeRssBytes, sampleTreeRss } from "./render-rss.ts";

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
  process.send?.({ ready: service.server.url.href, render: service.renderStatus() });
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
  const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 20);
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
  const ready = await new Promise<{ ready: string; render: string }>((resolve, reject) => {
    child.once("message", (m) => resolve(m as { ready: string; render: string }));
    child.once("exit", (code) => reject(new Error(`service exited with ${code} before it was ready`)));
  });
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

  function report(label: string, result: RunResult): void {
    const { latencies, wallMs, failures } = result;
    console.log(
      `${label.padEnd(34)} ${String(latencies.length).padStart(4)} pages  ${((latencies.length * 1000) / wallMs).toFixed(1).padStart(6)} pages/s  p50 ${percentile(latencies, 50).toFixed(0).padStart(5)} ms  p95 ${percentile(latencies, 95).toFixed(0).padStart(5)} ms${failures ? `  FAILURES ${failures}` : ""}`,
    );
  }

  const pool = 2; // the renderer's default (renderPages)
  const urls = Array.from({ length: rounds }, () => PAGES.map((p) => site.url(p))).flat();
  const simple = Array.from({ length: rounds }, () => site.url("/script-built.html"));

  const idle = readTreeRssBytes(servicePid);
  console.log(`load average before the run: ${loadAverage()}`);
  console.log(`service idle at start (the browser launching with --render-warm on): RSS ${mib(idle.bytes)}, PSS ${mib(idle.pssBytes)} (${idle.processes} process)`);
  const rss = sampleTreeRss(servicePid);
  let t = performance.now();
  // --render-warm on: the browser and a ready context (a renderer process) start off the start's clock.
  const hasRenderer = () => listProcessTree(servicePid).some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer");
    } catch {
      return false;
    }
  });
  while (!hasRenderer() && performance.now() - t < 30_000) await new Promise((resolve) => setTimeout(resolve, 20));
  console.log(`browser warm (a ready context's renderer running) after the service said it was ready: ${(performance.now() - t).toFixed(0)} ms`);
  t = performance.now();
  rss.phase("first render");
  await run([site.url("/script-built.html")], 1, "render");
  console.log(`first render after start, once warm: ${(performance.now() - t).toFixed(0)} ms (a render arriving during the warm-up waits for it)`);

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
  rss.phase("simple page, 1 at a time");
  report("render, simple page, 1 at a time", await oneAtATime(simple, "render"));
  rss.phase(`simple page, ${pool} at once`);
  report(`render, simple page, ${pool} at once`, await run(simple, pool, "render"));
  rss.phase("simple page, 4 at once");
  report("render, simple page, 4 at once", await run(simple, 4, "render"));
  rss.phase(`3 page kinds, ${pool} at once`);
  report(`render, 3 page kinds, ${pool} at once`, await run(urls, pool, "render"));
  rss.phase("3 page kinds, 10 at once");
  report("render, 3 page kinds, 10 at once", await run(urls, 10, "render"));
  rss.phase("screenshot, 1 at a time");
  report("screenshot 1280x800, 1 at a time", await oneAtATime(simple, "screenshot"));
  const peak = rss.stop();
  report("no render, simple page, 1 at a time", await run(simple, 1, "read"));
  report(`no render, 3 page kinds, ${pool} at once`, await run(urls, pool, "read"));
  console.log(`load average after the run: ${loadAverage()}`);

  console.log(
    `peak RSS of the service's process tree (sum of RSS): ${mib(peak.peakBytes)} = ${mb(peak.peakBytes)} over up to ${peak.peakProcesses} processes (target < 800 MB)`,
  );
  console.log(`  at the RSS peak (renders: ${peak.peakPhase}): ${peak.peakBreakdown.join(", ")}`);
  console.log(`peak PSS of the service's process tree (shared pages split): ${mib(peak.peakPssBytes)} = ${mb(peak.peakPssBytes)}`);
  console.log(`peak RSS of the service's own process (Bun, its threads) during the renders: ${mib(peak.rootPeakBytes)}`);

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
