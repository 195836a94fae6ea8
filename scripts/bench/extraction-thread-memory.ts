/**
 * What one extraction thread holds: the dev set's pages extracted one after another on a pool of
 * one thread, with the process's RSS and high-water mark every 30 pages, then after the thread has
 * been idle (its idle collection has run). Shows how much of a thread's RSS is memory the runtime
 * freed but kept, the CPU a page costs, and what the collection budget changes:
 *   node_modules/.bin/bun scripts/bench/extraction-thread-memory.ts [--budget WEIGHT] [--data DIR] [--rounds N]   (collection-pacing.ts)
 * With `--rounds N` the set is extracted N times over; CPU per page is then mostly warm code.
 */
import { DEFAULT_COLLECT_BUDGET, createExtractPool } from "../../src/web/threads/extract-pool.ts";
import { DEV_SET_DIR, loadDevPages, option, readRss } from "./dev-set.ts";

const dataDir = option("data", DEV_SET_DIR);
const budget = Number(option("budget", String(DEFAULT_COLLECT_BUDGET)));
const rounds = Number(option("rounds", "1"));
const pages = loadDevPages(dataDir);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0).padStart(4);
const line = (label: string) => {
  const { rss, peak } = readRss();
  console.log(`${label.padEnd(34)} RSS ${mib(rss)} MiB   high-water ${mib(peak)} MiB`);
};

Bun.gc(true);
line("before the thread");
const pool = createExtractPool({ size: 1, collectBudget: budget });
await pool.extract({ html: "<p>warm</p>", url: "https://example.com/", markdown: false });
await Bun.sleep(1_000);
line("thread started, idle");
console.log(`${pages.length} pages × ${rounds}, collection budget ${budget} (characters of HTML)`);
const cpuBefore = process.cpuUsage();
let done = 0;
for (let round = 0; round < rounds; round++) {
  for (const [i, html] of pages.entries()) {
    await pool.extract({ html, url: `https://example.com/${i}`, markdown: false });
    if (++done % (30 * rounds) === 0) line(`after ${done} pages`);
  }
}
const cpu = process.cpuUsage(cpuBefore);
// One page at a time, so this is the thread's extraction and collections plus the engine's helper threads.
console.log(`CPU ${((cpu.user + cpu.system) / 1000 / done).toFixed(2)} ms per page (all threads of the process)`);
await Bun.sleep(1_000);
line("idle 1 s (idle collection ran)");
await Bun.sleep(5_000);
line("idle 6 s");
await pool.close();
