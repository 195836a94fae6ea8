/**
 * Extraction speed on the shared dev set, in one run and on the same pages: our extraction
 * (extractHtml, parse included), Mozilla Readability on happy-dom (the README's reference: new
 * Window, document.write, Readability.parse, window closed), and happy-dom parsing alone (the
 * same Window + write + close, and our parse: the shared window's DOMParser on the leaner HTML).
 * Runs are interleaved page by page so load on the machine hits all of them alike.
 *
 *   node_modules/.bin/bun scripts/bench/extraction-speed.ts [--rounds 3] [--data DIR] [--limit N]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Readability } from "@mozilla/readability";
import { Window } from "happy-dom";
import { closeParserWindow, minimizeHtml, parseHtmlDocument } from "../../src/web/content-parse.ts";
import { extractHtml } from "../../src/web/extract.ts";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] !== undefined ? (process.argv[at + 1] as string) : fallback;
}

const dataDir = option("data", "/work/shared/bench/extraction/data");
const rounds = Number(option("rounds", "3"));
const limit = Number(option("limit", "0"));
const URL_BASE = "https://example.com/";
const SETTINGS = { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true, disableIframePageLoading: true };

const files = readdirSync(join(dataDir, "html")).filter((f) => f.endsWith(".html.gz")).sort();
const pages = (limit > 0 ? files.slice(0, limit) : files).map((f) => gunzipSync(readFileSync(join(dataDir, "html", f))).toString("utf8"));

type Runner = (html: string) => Promise<unknown>;
const runners: Record<string, Runner> = {
  "ours (extractHtml, text)": (html) => extractHtml({ html, url: URL_BASE, markdown: false }),
  "readability on happy-dom": async (html) => {
    const window = new Window({ url: URL_BASE, settings: SETTINGS });
    try {
      window.document.write(html);
      return new Readability(window.document as unknown as Document).parse()?.textContent;
    } finally {
      await window.happyDOM.close();
    }
  },
  "happy-dom parse alone (Window+write+close)": async (html) => {
    const window = new Window({ url: URL_BASE, settings: SETTINGS });
    window.document.write(html);
    await window.happyDOM.close();
  },
  "our parse alone (shared window, lean HTML)": async (html) => parseHtmlDocument(minimizeHtml(html)),
};

const times: Record<string, number[]> = Object.fromEntries(Object.keys(runners).map((name) => [name, []]));
for (const html of pages.slice(0, 5)) for (const run of Object.values(runners)) await run(html);
for (let round = 0; round < rounds; round++) {
  for (const html of pages) {
    for (const [name, run] of Object.entries(runners)) {
      const start = performance.now();
      await run(html);
      times[name]?.push(performance.now() - start);
    }
  }
}
await closeParserWindow();

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const summary: Record<string, { median: number; p95: number }> = {};
console.log(`pages=${pages.length} rounds=${rounds} samples_per_runner=${pages.length * rounds}`);
for (const [name, samples] of Object.entries(times)) {
  const sorted = [...samples].sort((a, b) => a - b);
  summary[name] = { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
  console.log(`${name.padEnd(44)} median ${quantile(sorted, 0.5).toFixed(2).padStart(7)} ms   p95 ${quantile(sorted, 0.95).toFixed(2).padStart(7)} ms   mean ${(sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(2).padStart(7)} ms`);
}
const ours = summary["ours (extractHtml, text)"];
const reference = summary["readability on happy-dom"];
if (ours && reference) {
  console.log(`RESULT ours_median_ms=${ours.median.toFixed(2)} ours_p95_ms=${ours.p95.toFixed(2)} readability_median_ms=${reference.median.toFixed(2)} readability_p95_ms=${reference.p95.toFixed(2)} median_ratio=${(ours.median / reference.median).toFixed(3)}`);
}
