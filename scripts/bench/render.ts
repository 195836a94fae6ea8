/**
 * render:true benchmark: loopback pages that build their content with JavaScript, read through
 * the web engine with the renderer at its default pool, then the same pages without render.
 * Prints pages/s and p50/p95 latency (sequential and at pool concurrency), cold start, and the
 * peak RSS of the whole process tree (bun + Chromium and its children, from /proc).
 * Usage: bun scripts/bench/render.ts [rounds=20] [--browser /path/to/chromium]
 */
import { createWebEngine, type ReadInput, type WebEngine } from "../../src/web/engine.ts";
import { createRenderer } from "../../src/web/renderer.ts";
import { startRenderSite } from "../../test/render/render-site.ts";
import { readFileSync } from "node:fs";
import { readTreeRssBytes, sampleTreeRss } from "./render-rss.ts";

const args = process.argv.slice(2);
const browserFlag = args.indexOf("--browser");
const browserPath = browserFlag >= 0 ? args[browserFlag + 1] : undefined;
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 20);
const PAGES = ["/script-built.html", "/catalogue.html", "/deferred.html"];
const USER_AGENT = "Tollbooth/bench (+https://example.invalid/contact)";

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

interface RunResult {
  latencies: number[];
  wallMs: number;
  failures: number;
}

async function run(engine: WebEngine, urls: string[], concurrency: number, render: boolean): Promise<RunResult> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++]!;
        const input: ReadInput = { url, format: "text", maxChars: 20_000, render };
        const t = performance.now();
        try {
          const result = await engine.read(input, AbortSignal.timeout(30_000));
          if (render && result.text.includes("Loading…")) failures++;
        } catch (error) {
          failures++;
          console.error(`  ${url}: ${(error as Error).message}`);
        }
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

const site = await startRenderSite();
const renderer = createRenderer({ browserPath, userAgent: USER_AGENT, policy: { allowLoopbackTargets: true } });
const status = renderer.status();
if (!status.available) {
  console.error(`render bench: ${status.detail}`);
  process.exit(1);
}
const engine = createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true, renderer: (url, signal) => renderer.render(url, signal) });
const pool = 2; // the renderer's default
const urls = Array.from({ length: rounds }, () => PAGES.map((p) => site.url(p))).flat();
const simple = Array.from({ length: rounds }, () => site.url("/script-built.html"));

console.log(`browser: ${status.detail}`);
const baseline = readTreeRssBytes(process.pid).bytes;
console.log(`load average before the run: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
const rss = sampleTreeRss(process.pid);
let t = performance.now();
await renderer.warm();
console.log(`cold start (launch + first context): ${(performance.now() - t).toFixed(0)} ms`);
t = performance.now();
await run(engine, [site.url("/script-built.html")], 1, true);
console.log(`first render after launch: ${(performance.now() - t).toFixed(0)} ms`);

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
const sequentialSimple: RunResult = { latencies: [], wallMs: 0, failures: 0 };
for (const url of simple) {
  // A caller at a time, with a short gap between calls (the spare context is ready again).
  const r = await run(engine, [url], 1, true);
  sequentialSimple.latencies.push(...r.latencies);
  sequentialSimple.wallMs += r.wallMs;
  sequentialSimple.failures += r.failures;
  await pause();
}
report("render, simple page, 1 at a time", sequentialSimple);
report(`render, simple page, ${pool} at once`, await run(engine, simple, pool, true));
report(`render, 3 page kinds, ${pool} at once`, await run(engine, urls, pool, true));
report("render, 3 page kinds, 10 at once", await run(engine, urls, 10, true));
const peak = rss.stop();
report("no render, simple page, 1 at a time", await run(engine, simple, 1, false));
report(`no render, 3 page kinds, ${pool} at once`, await run(engine, urls, pool, false));

const stats = renderer.stats();
console.log(`browser launches: ${stats.launches}, renders: ${stats.renders}`);
console.log(`peak RSS of the process tree (sum of RSS): ${mib(peak.peakBytes)} over up to ${peak.peakProcesses} processes (bun alone before launch: ${mib(baseline)})`);
console.log(`  at the RSS peak: ${peak.peakBreakdown.join(", ")}`);
console.log(`peak PSS of the process tree (shared pages split): ${mib(peak.peakPssBytes)}`);
await renderer.close();
await site.stop();
const after = readTreeRssBytes(process.pid);
console.log(`after close: ${after.processes} process(es) in the tree`);
