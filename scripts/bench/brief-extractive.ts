/**
 * web.brief's extractive engine (src/brief/): time to brief a 60,000-character page, p50 and p95
 * (target p95 < 10 ms), and the same for picking the 60 sentences a model would get. Pages are real
 * prose: the Dragnet dev set's article texts (ground-truth.json) joined and cut to 60,000
 * characters, starting at different articles. Run:
 *   node_modules/.bin/bun scripts/bench/brief-extractive.ts [--data /work/shared/bench/extraction/data] [--runs 300]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { extractiveBrief, selectSentences } from "../../src/brief/extractive.ts";
import { DEV_SET_DIR, option } from "./dev-set.ts";

const pageChars = 60_000;
const runs = Number(option("runs", "300"));
const truth = JSON.parse(readFileSync(join(option("data", DEV_SET_DIR), "ground-truth.json"), "utf8")) as Record<string, { articleBody?: string }>;
const articles = Object.keys(truth)
  .sort()
  .map((k) => (truth[k]!.articleBody ?? "").replace(/\r\n/g, "\n").trim())
  .filter((t) => t.length > 500);

/** 60,000 characters of article text starting at article `first`. */
function page(first: number): string {
  let text = "";
  for (let i = first; text.length < pageChars; i = (i + 1) % articles.length) text += `${articles[i]}\n\n`;
  return text.slice(0, pageChars);
}

const pages = Array.from({ length: 10 }, (_, i) => page(i * 13));
const focus = ["", "price earnings revenue", "", "police court", ""];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function time(label: string, fn: (text: string, focus: string) => unknown): void {
  for (let i = 0; i < 20; i++) fn(pages[i % pages.length]!, focus[i % focus.length]!); // warm up
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const text = pages[i % pages.length]!;
    const f = focus[i % focus.length]!;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn(text, f);
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  ms.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const line = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(2)} ms  p95 ${percentile(xs, 95).toFixed(2)} ms`;
  console.log(`${label.padEnd(34)} wall ${line(ms)}  max ${ms.at(-1)!.toFixed(2)} ms | process CPU ${line(cpu)}`);
}

const sample = extractiveBrief(pages[0]!);
console.log(`${articles.length} articles; ${pages.length} pages of ${pageChars} characters; ${sample.sentenceCount} sentences on the first; ${runs} runs each`);
console.log(`load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")} on this machine: wall times include waiting for a CPU; process CPU time (all threads, GC included) does not`);
time("extractive brief (8 bullets)", (text, f) => extractiveBrief(text, f ? { focus: f } : {}));
time("model input (top 60 sentences)", (text, f) => selectSentences(text, { count: 60, ...(f ? { focus: f } : {}) }));
