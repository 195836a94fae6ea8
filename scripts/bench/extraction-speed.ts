/**
 * Extraction speed on the shared dev set, in one run and on the same pages: our extraction
 * (extractHtml, parse included), Mozilla Readability on happy-dom (the README's reference: new
 * Window, document.write, Readability.parse, window closed), and parsing alone (happy-dom: the
 * same Window + write + close; ours: htmlparser2 on the source extraction reads, content-parse.ts).
 * Runs are interleaved page by page so load on the machine hits all of them alike.
 *
 * Wall-clock time is the figure; the load average is printed beside it, and so is each call's
 * CPU time (this thread's, see extraction-thread-clock.ts): on a loaded machine the difference is
 * time spent waiting for a core, not extraction work.
 *
 *   node_modules/.bin/bun scripts/bench/extraction-speed.ts [--rounds 3] [--data DIR] [--limit N] [--tail N] [--block-filter [--model FILE]]
 * --block-filter adds our extraction with the learned block filter on (block-filter.ts, off by default); --model FILE
 * runs it with that model file (train-block-model.ts --out FILE) in place of the shipped one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Window } from "happy-dom";
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { extractHtml } from "../../src/web/extract/extract.ts";
import { modelJudge, SHIPPED_BLOCK_MODEL, type BlockModel } from "../../src/web/extract/block-filter.ts";
import { DEV_SET_DIR, option } from "./dev-set.ts";
import { threadCpuMs } from "./extraction-thread-clock.ts";
import { REFERENCE_WINDOW_SETTINGS, readabilityText } from "./readability-reference.ts";

const dataDir = option("data", DEV_SET_DIR);
const rounds = Number(option("rounds", "3"));
const limit = Number(option("limit", "0"));
const tail = Number(option("tail", "0"));
const URL_BASE = "https://example.com/";
const modelFile = option("model", "");
const shippedJudge = modelJudge(modelFile ? (JSON.parse(readFileSync(modelFile, "utf8")) as BlockModel) : SHIPPED_BLOCK_MODEL);

const files = readdirSync(join(dataDir, "html")).filter((f) => f.endsWith(".html.gz")).sort();
const chosen = limit > 0 ? files.slice(0, limit) : files;
const pages = chosen.map((f) => gunzipSync(readFileSync(join(dataDir, "html", f))).toString("utf8"));

type Runner = (html: string) => Promise<unknown>;
const runners: Record<string, Runner> = {
  "ours (extractHtml, text)": (html) => extractHtml({ html, url: URL_BASE, markdown: false }),
  ...(process.argv.includes("--block-filter") ? { "ours with the learned block filter": (html: string) => extractHtml({ html, url: URL_BASE, markdown: false, blockJudge: shippedJudge }) } : {}),
  "readability on happy-dom": (html) => readabilityText(html),
  "happy-dom parse alone (Window+write+close)": async (html) => {
    const window = new Window({ url: URL_BASE, settings: REFERENCE_WINDOW_SETTINGS });
    window.document.write(html);
    await window.happyDOM.close();
  },
  "our parse alone (htmlparser2, cut source)": async (html) => parsePage(cutUnreadMarkup(html)),
};

const names = Object.keys(runners);
const wall: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
const cpu: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
/** Our wall times per page, for --tail. */
const oursByPage: number[][] = pages.map(() => []);
const loadBefore = loadavg();
for (const html of pages.slice(0, 5)) for (const run of Object.values(runners)) await run(html);
for (let round = 0; round < rounds; round++) {
  for (const [index, html] of pages.entries()) {
    for (const [name, run] of Object.entries(runners)) {
      const cpuStart = threadCpuMs();
      const start = performance.now();
      await run(html);
      const elapsed = performance.now() - start;
      wall[name]?.push(elapsed);
      cpu[name]?.push(threadCpuMs() - cpuStart);
      if (name === names[0]) oursByPage[index]?.push(elapsed);
    }
  }
}
const loadAfter = loadavg();

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function stats(samples: number[]): { median: number; p95: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

const ms = (value: number) => value.toFixed(2).padStart(7);
const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(" ");
console.log(`pages=${pages.length} rounds=${rounds} samples_per_runner=${pages.length * rounds} cores=${navigator.hardwareConcurrency}`);
console.log(`load average (1/5/15 min) before: ${load(loadBefore)}   after: ${load(loadAfter)}`);
const summary: Record<string, { wall: ReturnType<typeof stats>; cpu: ReturnType<typeof stats> }> = {};
for (const name of names) {
  const w = stats(wall[name] ?? []);
  const c = stats(cpu[name] ?? []);
  summary[name] = { wall: w, cpu: c };
  console.log(`${name.padEnd(44)} median ${ms(w.median)} ms   p95 ${ms(w.p95)} ms   mean ${ms(w.mean)} ms   | CPU median ${ms(c.median)} p95 ${ms(c.p95)}`);
}
if (tail > 0) {
  const slowest = oursByPage
    .map((samples, index) => ({ file: chosen[index] as string, kb: (pages[index]?.length ?? 0) / 1024, median: stats(samples).median }))
    .sort((a, b) => b.median - a.median)
    .slice(0, tail);
  console.log(`slowest pages (ours, median wall ms): ${slowest.map((p) => `${p.file.replace(".html.gz", "")} ${p.kb.toFixed(0)}KB ${p.median.toFixed(1)}`).join(", ")}`);
}
const ours = summary["ours (extractHtml, text)"];
const reference = summary["readability on happy-dom"];
if (ours && reference) {
  const fixed = (value: number) => value.toFixed(2);
  console.log(
    `RESULT ours_median_ms=${fixed(ours.wall.median)} ours_p95_ms=${fixed(ours.wall.p95)} readability_median_ms=${fixed(reference.wall.median)} readability_p95_ms=${fixed(reference.wall.p95)} median_ratio=${(ours.wall.median / reference.wall.median).toFixed(3)} ours_cpu_median_ms=${fixed(ours.cpu.median)} ours_cpu_p95_ms=${fixed(ours.cpu.p95)} readability_cpu_median_ms=${fixed(reference.cpu.median)} readability_cpu_p95_ms=${fixed(reference.cpu.p95)} load1_before=${loadBefore[0]?.toFixed(2)} load1_after=${loadAfter[0]?.toFixed(2)}`,
  );
}
