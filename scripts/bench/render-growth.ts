/**
 * Memory over many renders: the service (in this process, payments off, loopback targets allowed,
 * the browser never restarted) renders the simple script-built page N times one after another
 * through POST /v1/web/read {render:true}; after every 50 it collects and prints this process's RSS,
 * JS heap and object count, so a per-render leak (contexts, pages, lanes, listeners) shows as a
 * rising line. Each render's total-timeout signal keeps a few objects until it fires (20 s), so the
 * last row is taken after that window. Chromium's processes are not counted here (see render.ts).
 *   node_modules/.bin/bun scripts/bench/render-growth.ts [renders=300]
 */
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { startRenderSite } from "../../test/web/render/render-site.ts";

const renders = Number(process.argv[2] ?? 300);
const site = await startRenderSite();
const dir = mkdtempSync(join(tmpdir(), "tb-render-growth-"));
const service = await startService(
  loadConfig({
    argv: ["--host", "127.0.0.1", "--port", "0", "--payments", "off", "--unsafe-allow-loopback-targets", "--data", dir, "--rate-limit-per-min", "1000000", "--log-level", "error", "--render-restart-after", "100000"],
    env: {},
  }),
);
const url = new URL("/v1/web/read", service.server.url).href;
const rows: { renders: number; rss: number; heap: number; objects: number }[] = [];
for (let i = 1; i <= renders; i++) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url("/script-built.html"), render: true }) });
  const body = (await response.json()) as { ok: boolean; javascript_rendered?: boolean };
  if (!body.ok || body.javascript_rendered !== true) throw new Error(`render ${i} failed: ${JSON.stringify(body).slice(0, 200)}`);
  if (i % 50 === 0) {
    Bun.gc(true);
    const heap = heapStats();
    rows.push({ renders: i, rss: process.memoryUsage().rss, heap: heap.heapSize, objects: heap.objectCount });
    const row = rows.at(-1)!;
    console.log(`renders ${String(i).padStart(5)}  RSS ${(row.rss / 2 ** 20).toFixed(0)} MiB  JS heap ${(row.heap / 2 ** 20).toFixed(1)} MB  objects ${row.objects}`);
  }
}
// Every render's total-timeout signal (and what its listener holds) has fired by now.
await Bun.sleep(21_000);
Bun.gc(true);
const settled = heapStats();
rows.push({ renders, rss: process.memoryUsage().rss, heap: settled.heapSize, objects: settled.objectCount });
console.log(`after 21 s idle  RSS ${(rows.at(-1)!.rss / 2 ** 20).toFixed(0)} MiB  JS heap ${(settled.heapSize / 2 ** 20).toFixed(1)} MB  objects ${settled.objectCount}`);
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
