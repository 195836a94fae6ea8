/**
 * What one very large page costs an extraction thread (issue 15 §5): RSS and JS heap after
 * extracting soak.ts's ~600 KB generated page in this process, with or without Markdown, a full
 * collection between tries. Compare revisions by running it from each checkout.
 *
 *   node_modules/.bin/bun scripts/bench/large-page-memory.ts [--markdown] [--tries 4]
 */
import { heapStats } from "bun:jsc";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { option } from "./dev-set.ts";
import { largePage } from "./large-page.ts";

const markdown = process.argv.includes("--markdown");
const tries = Number(option("tries", "4"));
const html = new TextDecoder().decode(largePage(1));
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

Bun.gc(true);
console.log(`page ${html.length} characters, markdown ${markdown}; before: RSS ${mib(process.memoryUsage().rss)} MiB, heap ${mib(heapStats().heapSize)} MiB`);
for (let i = 0; i < tries; i++) {
  const result = extractHtmlSync({ html, url: "https://example.com/large", markdown });
  console.log(`  try ${i + 1}: text ${result.text.length} chars; after: RSS ${mib(process.memoryUsage().rss)} MiB, heap ${mib(heapStats().heapSize)} MiB`);
  Bun.gc(true);
}
console.log(`peak RSS (kernel high-water mark): ${mib(Number(/VmHWM:\s+(\d+)/.exec(await Bun.file("/proc/self/status").text())?.[1] ?? 0) * 1024)} MiB`);
