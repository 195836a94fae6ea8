/**
 * web/crawl on a 2,000-page loopback site, politeness off: pages per second of a crawl (frontier and
 * pages in a SQLite file, results signed) beside web/read's reads per second of the same 2,000 pages
 * through the same engine, concurrency and signing, in the same run; resident memory sampled over
 * the crawl; then a crawl in a child process killed with SIGKILL half way and resumed by a second
 * one, checked to deliver every page exactly once.
 *
 *   node_modules/.bin/bun scripts/bench/crawl.ts [--pages 2000] [--lanes 4] [--no-kill]
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createCrawlWorker } from "../../src/crawl/crawl-worker.ts";
import type { CrawlStore } from "../../src/crawl/crawl-store.ts";
import { openStore } from "../../src/database.ts";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { createEvidenceSeal } from "../../src/evidence/seal.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { mapBounded } from "../../src/web/endpoints.ts";
import { createWebEngine } from "../../src/web/engine.ts";
import { noteRead } from "../../src/web/evidence-facts.ts";
import { option } from "./dev-set.ts";

const PAGES = Number(option("pages", "2000"));
const LANES = Number(option("lanes", "4"));
const FANOUT = 8;

const web = createWebEngine({ userAgent: "Tollbooth/bench (+https://example.com)", allowLoopbackTargets: true });
const newWorker = (store: CrawlStore, seal: (r: object) => Promise<unknown>) =>
  createCrawlWorker({ store, web, log: createMemoryLogger(), now: () => new Date(), seal, options: { lanes: LANES, perHost: LANES, hostDelayMs: 0, leaseMs: 3_000, idleMs: 20 } });

async function signer() {
  const seal = createEvidenceSeal(await openEvidenceKeys(":memory:"));
  return (result: object) => seal.seal(result, { server: "http://bench.local", payment: { network: null, transaction: null } });
}

// ── child mode: one instance's worker on the shared SQLite file, until the crawl ends or it is killed.
if (process.argv.includes("--child")) {
  const store = openStore(option("child", ""));
  const worker = newWorker(store.crawls, await signer());
  worker.start();
  const id = option("crawl", "");
  for (;;) {
    const row = await store.crawls.get(id);
    if (row && !["queued", "running"].includes(row.status)) break;
    await Bun.sleep(50);
  }
  worker.stop();
  await worker.stopped();
  process.exit(0);
}

const hits = new Map<string, number>();
const words = "crawl bench page text with enough words to be extracted as the main content of the page".split(" ");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
    const n = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? -1);
    if (n < 0 || n >= PAGES) return new Response("not found", { status: 404 });
    const links = Array.from({ length: FANOUT }, (_, k) => FANOUT * n + k + 1).filter((c) => c < PAGES);
    const text = Array.from({ length: 60 }, (_, i) => words[(i * 7 + n) % words.length]).join(" ");
    return new Response(
      `<!doctype html><html><head><title>Page ${n}</title></head><body><nav>${links.map((c) => `<a href="/p/${c}">Page ${c}</a>`).join(" ")}</nav><main><h1>Page ${n}</h1><p>Page ${n}: ${text}.</p><p>${text} (${n}).</p></main></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  },
});
const origin = `http://127.0.0.1:${server.port}`;
const urls = Array.from({ length: PAGES }, (_, n) => `${origin}/p/${n}`);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function newCrawl(store: CrawlStore): Promise<string> {
  const id = `crawl_${randomBytes(16).toString("hex")}`;
  const now = Date.now();
  await store.create(
    { id, request: { url: urls[0]!, limit: PAGES, max_depth: 20, sitemap: "skip" }, payer: null, tokenSha256: "0".repeat(64), limit: PAGES, createdAt: new Date(now).toISOString(), deadlineMs: now + 3_600_000, expiresMs: now + 7_200_000 },
    [{ url: urls[0]!, depth: 0 }],
  );
  await store.release(id, { network: null, transaction: null });
  return id;
}

async function waitEnd(store: CrawlStore, id: string, onTick: () => void = () => {}) {
  for (;;) {
    const row = await store.get(id);
    onTick();
    if (row && !["queued", "running"].includes(row.status)) return row;
    await Bun.sleep(20);
  }
}

const seal = await signer();
// Warm up the engine and the extractor.
await mapBounded(urls.slice(0, 50), LANES, (url) => web.read({ url, format: "text", maxChars: 20_000 }, AbortSignal.timeout(30_000)));

// ── web/read reference: the same pages, same concurrency, each signed.
let start = performance.now();
await mapBounded(urls, LANES, async (url) => seal(noteRead(await web.read({ url, format: "text", maxChars: 20_000 }, AbortSignal.timeout(30_000)), {} as never)));
const readSeconds = (performance.now() - start) / 1000;

// ── the crawl, in this process, on a SQLite file.
const dir = mkdtempSync(join(tmpdir(), "tb-crawl-bench-"));
const store = openStore(dir);
Bun.gc(true);
const rss: number[] = [];
const worker = newWorker(store.crawls, seal);
const id = await newCrawl(store.crawls);
start = performance.now();
worker.start();
let lastSample = 0;
const row = await waitEnd(store.crawls, id, () => {
  if (performance.now() - lastSample > 100) {
    lastSample = performance.now();
    rss.push(process.memoryUsage().rss);
  }
});
const crawlSeconds = (performance.now() - start) / 1000;
worker.stop();
await worker.stopped();
if (row.counts.fetched !== PAGES) throw new Error(`crawl fetched ${row.counts.fetched} pages, expected ${PAGES}`);

const quart = (q: number) => rss[Math.min(rss.length - 1, Math.floor((rss.length - 1) * q))]!;
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} (2 shared cores)`);
console.log(`web/read, ${PAGES} pages, ${LANES} at a time, signed:  ${(PAGES / readSeconds).toFixed(0)} reads/s (${readSeconds.toFixed(1)} s)`);
console.log(`web/crawl, ${PAGES} pages, ${LANES} lanes, signed, SQLite: ${(PAGES / crawlSeconds).toFixed(0)} pages/s (${crawlSeconds.toFixed(1)} s) = ${(readSeconds / crawlSeconds).toFixed(2)}x web/read`);
console.log(`resident memory over the crawl (start, 25%, 50%, 75%, end, max): ${[0, 0.25, 0.5, 0.75, 1].map(quart).map(mb).join(", ")}, ${mb(Math.max(...rss))} MB`);

// ── kill -9 half way, then a second instance resumes.
if (!process.argv.includes("--no-kill")) {
  hits.clear();
  const killDir = mkdtempSync(join(tmpdir(), "tb-crawl-kill-"));
  const killStore = openStore(killDir);
  const killId = await newCrawl(killStore.crawls);
  const child = (tag: string) => spawn(process.execPath, [import.meta.path, "--child", killDir, "--crawl", killId], { stdio: "inherit", env: { ...process.env, BENCH_TAG: tag } });
  const first = child("first");
  for (;;) {
    const r = await killStore.crawls.get(killId);
    if ((r?.delivered ?? 0) >= PAGES / 2) break;
    await Bun.sleep(10);
  }
  first.kill("SIGKILL");
  await new Promise((resolve) => first.once("exit", resolve));
  const atKill = (await killStore.crawls.get(killId))!;
  const resumeStart = performance.now();
  const second = child("second");
  const ended = await waitEnd(killStore.crawls, killId);
  await new Promise((resolve) => second.once("exit", resolve));
  const pages = await killStore.crawls.pages(killId, 0, PAGES * 2);
  const distinct = new Set(pages.map((p) => (JSON.parse(p.result) as { url: string }).url)).size;
  const refetched = urls.filter((u) => (hits.get(new URL(u).pathname) ?? 0) > 1).length;
  console.log(
    `kill -9 at ${atKill.delivered} of ${PAGES} pages delivered; resumed by a second process in ${((performance.now() - resumeStart) / 1000).toFixed(1)} s (leases of 3 s lapse first): ` +
      `status ${ended.status}, ${pages.length} pages delivered, ${distinct} distinct, ${refetched} fetched twice (in flight at the kill, delivered once)`,
  );
  if (pages.length !== PAGES || distinct !== PAGES) throw new Error("the resumed crawl did not deliver every page exactly once");
  await killStore.close();
}
await store.close();
await server.stop(true);
