/**
 * Memory over many renders: the service (in this process, payments off, loopback targets allowed,
 * the browser never restarted) renders the simple script-built page N times one after another
 * through POST /v1/web/read {render:true}; after every 50 it collects and prints this process's RSS,
 * JS heap and object count, so a per-render leak (contexts, pages, lanes, listeners) shows as a
 * rising line. Each render's total-timeout signal keeps a few objects until it fires (20 s), so the
 * last row is taken after that window. Each row also gives the RSS and PSS summed over the browser's
 * process tree (Chromium alone, this process excluded), the bound being the tree after 500 renders
 * at most 10 % above the tree after 50; the renderer's own rules hold (contexts reused for 50 callers each,
 * the browser replaced every --render-restart-after renders, default 200).
 *   node_modules/.bin/bun scripts/bench/render-growth.ts [renders=300] [--restart-after N]
 */
import { heapStats } from "bun:jsc";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { startRenderSite } from "../../test/web/render/render-site.ts";
import { listProcessTree, readTreeRssBytes } from "./render-rss.ts";

const renders = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 300);
const restartAt = process.argv.indexOf("--restart-after");
const restartAfter = restartAt >= 0 ? (process.argv[restartAt + 1] ?? "200") : "200";
const site = await startRenderSite();
const dir = mkdtempSync(join(tmpdir(), "tb-render-growth-"));
const service = await startService(
  loadConfig({
    argv: ["--host", "127.0.0.1", "--port", "0", "--payments", "off", "--unsafe-allow-loopback-targets", "--data", dir, "--rate-limit-per-min", "1000000", "--log-level", "error", "--render-restart-after", restartAfter],
    env: {},
  }),
);
const url = new URL("/v1/web/read", service.server.url).href;
const rows: { renders: number; rss: number; heap: number; objects: number }[] = [];
/** The browser's tree: this process's children (Chromium), each with its own tree. */
function browserTree(): { bytes: number; pssBytes: number; processes: number } {
  const total = { bytes: 0, pssBytes: 0, processes: 0 };
  for (const pid of listProcessTree(process.pid).filter((p) => p !== process.pid)) {
    const one = readTreeRssBytes(pid);
    if (one.processes === 0) continue;
    // readTreeRssBytes counts a process's whole tree; only roots (children of this process) are summed.
    const parent = Number(/\) \S+ (\d+)/.exec(readStat(pid))?.[1]);
    if (parent !== process.pid) continue;
    total.bytes += one.bytes;
    total.pssBytes += one.pssBytes;
    total.processes += one.processes;
  }
  return total;
}
function readStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "";
  }
}
const treeRows: { renders: number; bytes: number; pssBytes: number; processes: number }[] = [];
for (let i = 1; i <= renders; i++) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url("/script-built.html"), render: true }) });
  const body = (await response.json()) as { ok: boolean; javascript_rendered?: boolean };
  if (!body.ok || body.javascript_rendered !== true) throw new Error(`render ${i} failed: ${JSON.stringify(body).slice(0, 200)}`);
  if (i % 50 === 0) {
    Bun.gc(true);
    const heap = heapStats();
    rows.push({ renders: i, rss: process.memoryUsage().rss, heap: heap.heapSize, objects: heap.objectCount });
    const row = rows.at(-1)!;
    // Sampled once the pool is at rest (every context back and ready), so rows compare like with like.
    await Bun.sleep(1_500);
    const tree = browserTree();
    treeRows.push({ renders: i, ...tree });
    console.log(
      `renders ${String(i).padStart(5)}  RSS ${(row.rss / 2 ** 20).toFixed(0)} MiB  JS heap ${(row.heap / 2 ** 20).toFixed(1)} MB  objects ${row.objects}  browser tree RSS ${(tree.bytes / 2 ** 20).toFixed(0)} MiB PSS ${(tree.pssBytes / 2 ** 20).toFixed(0)} MiB (${tree.processes} processes)`,
    );
  }
}
// Every render's total-timeout signal (and what its listener holds) has fired by now.
await Bun.sleep(21_000);
Bun.gc(true);
const settled = heapStats();
rows.push({ renders, rss: process.memoryUsage().rss, heap: settled.heapSize, objects: settled.objectCount });
console.log(`after 21 s idle  RSS ${(rows.at(-1)!.rss / 2 ** 20).toFixed(0)} MiB  JS heap ${(settled.heapSize / 2 ** 20).toFixed(1)} MB  objects ${settled.objectCount}`);
const at50 = treeRows.find((row) => row.renders === 50);
// The pool's context count at a sample depends on where its contexts are in their 50 uses: compare rows
// with as many processes as the row after 50.
const atEnd = treeRows.findLast((row) => row.processes === at50?.processes);
if (at50 && atEnd && atEnd !== at50) {
  console.log(
    `browser tree after ${atEnd.renders} renders vs after 50 (${atEnd.processes} processes in both): RSS ${((atEnd.bytes / at50.bytes - 1) * 100).toFixed(1)} %, PSS ${((atEnd.pssBytes / at50.pssBytes - 1) * 100).toFixed(1)} % (bound: RSS at most +10 %)`,
  );
}
await service.close();
await site.stop();
rmSync(dir, { recursive: true, force: true });
const first = rows[0];
const last = rows.at(-1);
if (first && last && last !== first) {
  const per = (last.renders - first.renders) / 100;
  console.log(`growth from ${first.renders} to ${last.renders} renders: RSS ${((last.rss - first.rss) / 2 ** 20 / per).toFixed(1)} MiB, JS heap ${((last.heap - first.heap) / 2 ** 20 / per).toFixed(2)} MB, objects ${((last.objects - first.objects) / per).toFixed(0)} per 100 renders`);
}
process.exit(0);
