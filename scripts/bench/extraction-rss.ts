/**
 * Memory over many extractions with the shared parsing window: extracts the dev set's pages in a
 * loop and prints RSS and heap after each thousand, so growth (a leaking window or document)
 * shows as a rising line.
 *   node_modules/.bin/bun scripts/bench/extraction-rss.ts [--reads 10000] [--data DIR]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { closeParserWindow } from "../../src/web/content-parse.ts";
import { extractHtml } from "../../src/web/extract.ts";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] !== undefined ? (process.argv[at + 1] as string) : fallback;
}

const dataDir = option("data", "/work/shared/bench/extraction/data");
const reads = Number(option("reads", "10000"));
const files = readdirSync(join(dataDir, "html")).filter((f) => f.endsWith(".html.gz")).sort();
const pages = files.map((f) => gunzipSync(readFileSync(join(dataDir, "html", f))).toString("utf8"));
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);

const start = performance.now();
for (let i = 1; i <= reads; i++) {
  await extractHtml({ html: pages[i % pages.length] as string, url: "https://example.com/", markdown: i % 2 === 0 });
  if (i % 1000 === 0) {
    Bun.gc(true);
    const memory = process.memoryUsage();
    console.log(`reads=${i} rss_mb=${mb(memory.rss)} heap_used_mb=${mb(memory.heapUsed)} elapsed_s=${((performance.now() - start) / 1000).toFixed(1)}`);
  }
}
await closeParserWindow();
