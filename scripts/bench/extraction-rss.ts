/**
 * Memory over many extractions with the shared parsing window: extracts the dev set's pages in a
 * loop and prints RSS and heap after each thousand, so growth (a leaking window or document)
 * shows as a rising line.
 *   node_modules/.bin/bun scripts/bench/extraction-rss.ts [--reads 10000] [--data DIR]
 */
import { extractHtml } from "../../src/web/extract/extract.ts";
import { DEV_SET_DIR, loadDevPages, option } from "./dev-set.ts";

const dataDir = option("data", DEV_SET_DIR);
const reads = Number(option("reads", "10000"));
const pages = loadDevPages(dataDir);
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
