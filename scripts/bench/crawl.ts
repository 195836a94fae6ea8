/**
 * web/crawl on a 2,000-page loopback site, politeness off (issue 42), beside web/read in the same run:
 *
 * 1. Engine: a crawl worker on a SQLite file (claims, deliveries, signing) against web/read's reads of
 *    the same pages through the same engine, concurrency and signing, in this process.
 * 2. Server: our server as an operator runs it (`src/main.ts serve`, or `--binary PATH`), payments off:
 *    POST /v1/web/crawl polled to its end against POST /v1/web/read of every page over HTTP at the
 *    same concurrency; the server's resident memory sampled over the crawl (start, middle, end, slope).
 * 3. kill -9: a second crawl on that server, SIGKILLed once half its pages were delivered, the server
 *    started again on the same data folder; the crawl must finish with every page exactly once (pages
 *    paged through by cursor: as many as the site has, each URL once).
 *
 * Both print wall-clock rates and CPU a page (this process's, or the server's with its threads): on a
 * shared machine the second is the steadier comparison.
 *
 *   node_modules/.bin/bun scripts/bench/crawl.ts [--pages 2000] [--lanes 4] [--binary dist/tollbooth] [--no-kill]
 *     [--engine-only] (part 1 alone) [--batch N] (part 1's delivery batch, CrawlWorkerOptions.batch)
 *     [--pg] (part 1's crawl again on a PostgreSQL started for the run)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createCrawlWorker } from "../../src/crawl/crawl-worker.ts";
import type { CrawlStore } from "../../src/crawl/crawl-store.ts";
import { openPgFacets, openStore } from "../../src/database.ts";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { createEvidenceSeal } from "../../src/evidence/seal.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { mapBounded } from "../../src/web/endpoints.ts";
import { createWebEngine } from "../../src/web/engine.ts";
import { noteRead } from "../../src/web/evidence-facts.ts";
import { startPostgres } from "../../test/support/postgres.ts";
import { option, readRss } from "./dev-set.ts";
import { loadBenchArgs, type ServerProcess, startServerProcess } from "./server-process.ts";

const PAGES = Number(option("pages", "2000"));
const LANES = Number(option("lanes", "4"));
const binary = option("binary", "");
const FANOUT = 8;

// ── the site: /p/0 … /p/(PAGES-1), each linking to its FANOUT children.
const hits = new Map<string, number>();
const words = "crawl bench page text with enough words to be extracted as the main content of the page".split(" ");
const site = Bun.serve({
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
const origin = `http://127.0.0.1:${site.port}`;
const urls = Array.from({ length: PAGES }, (_, n) => `${origin}/p/${n}`);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const rate = (count: number, seconds: number) => `${(count / seconds).toFixed(0)}/s (${seconds.toFixed(1)} s)`;
const seconds = (since: number) => (performance.now() - since) / 1000;
/** CPU time (user + system, every thread) of a process in ms: this one's, or another's from /proc (100 ticks a second). */
function cpuMs(pid?: number): number {
  if (pid === undefined) {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  }
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
/** "X ms of CPU a page" for both, and their ratio (read over crawl: above 1, the crawl costs less a page). */
const cpuLine = (readCpu: number, crawlCpu: number) =>
  `CPU a page: web/read ${(readCpu / PAGES).toFixed(2)} ms, web/crawl ${(crawlCpu / PAGES).toFixed(2)} ms = ${(readCpu / crawlCpu).toFixed(2)}x web/read's pages per CPU second`;

/** Resident memory samples over a crawl: start, middle, end, peak, and the least-squares slope per 1,000 pages delivered. */
function memoryLine(samples: readonly { delivered: number; rss: number }[]): string {
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor((samples.length - 1) * q))]!.rss;
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.delivered, 0) / n;
  const my = samples.reduce((a, s) => a + s.rss, 0) / n;
  const sxy = samples.reduce((a, s) => a + (s.delivered - mx) * (s.rss - my), 0);
  const sxx = samples.reduce((a, s) => a + (s.delivered - mx) ** 2, 0);
  const slope = sxx > 0 ? (sxy / sxx) * 1000 : 0;
  return `start ${mb(at(0))}, middle ${mb(at(0.5))}, end ${mb(at(1))}, max ${mb(Math.max(...samples.map((s) => s.rss)))} MB; slope ${(slope / 1024 / 1024).toFixed(1)} MB per 1,000 pages (${n} samples)`;
}

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} (2 shared cores); ${PAGES} pages, ${LANES} at a time, politeness off`);

// ── 1. engine: crawl worker on SQLite against web/read through the same engine, in this process.
{
  const web = createWebEngine({ userAgent: "Tollbooth/bench (+https://example.com)", allowLoopbackTargets: true });
  const evidence = createEvidenceSeal(await openEvidenceKeys(":memory:"));
  const seal = (result: object) => evidence.seal(result, { server: "http://bench.local", payment: { network: null, transaction: null } });
  const read = (url: string) => web.read({ url, format: "text", maxChars: 20_000 }, AbortSignal.timeout(30_000));
  await mapBounded(urls.slice(0, 50), LANES, read);

  const start = performance.now();
  const cpu = cpuMs();
  await mapBounded(urls, LANES, async (url) => seal(noteRead(await read(url), {} as never)));
  const readSeconds = seconds(start);
  const readCpu = cpuMs() - cpu;

  /** One crawl of the site by a worker of this process on `crawls`: its seconds, CPU and memory samples. */
  async function crawlOn(crawls: CrawlStore) {
    const worker = createCrawlWorker({ store: crawls, web, log: createMemoryLogger(), now: () => new Date(), seal, options: { lanes: LANES, perHost: LANES, hostDelayMs: 0, leaseMs: 3_000, ...(option("batch", "") ? { batch: Number(option("batch", "")) } : {}) } });
    const id = `crawl_${randomBytes(16).toString("hex")}`;
    const now = Date.now();
    await crawls.create(
      { id, request: { url: urls[0]!, limit: PAGES, max_depth: 20, sitemap: "skip" }, payer: null, limit: PAGES, createdAt: new Date(now).toISOString(), deadlineMs: now + 3_600_000, expiresMs: now + 7_200_000 },
      [{ url: urls[0]!, depth: 0 }],
    );
    await crawls.release(id, { network: null, transaction: null });
    Bun.gc(true);
    const samples: { delivered: number; rss: number }[] = [];
    const start = performance.now();
    const cpu = cpuMs();
    worker.start();
    worker.wake();
    let row;
    for (;;) {
      row = (await crawls.get(id))!;
      samples.push({ delivered: row.delivered, rss: process.memoryUsage().rss });
      if (!["queued", "running"].includes(row.status)) break;
      await Bun.sleep(50);
    }
    const result = { seconds: seconds(start), cpu: cpuMs() - cpu, samples };
    worker.stop();
    await worker.stopped();
    if (row.counts.fetched !== PAGES) throw new Error(`crawl fetched ${row.counts.fetched} pages, expected ${PAGES}`);
    return result;
  }

  const store = openStore(mkdtempSync(join(tmpdir(), "tb-crawl-bench-")));
  const crawled = await crawlOn(store.crawls);
  await store.close();
  console.log(`\n1. engine, this process (SQLite file):`);
  console.log(`   web/read, signed:  ${rate(PAGES, readSeconds)}`);
  console.log(`   web/crawl, signed: ${rate(PAGES, crawled.seconds)} = ${(readSeconds / crawled.seconds).toFixed(2)}x web/read`);
  console.log(`   ${cpuLine(readCpu, crawled.cpu)} (this process, the site included in both)`);
  console.log(`   this process's resident memory over the crawl: ${memoryLine(crawled.samples)}`);
  if (process.argv.includes("--pg")) {
    // A real PostgreSQL on loopback (test/support/postgres.ts: durability off, as in the tests): round trips and driver, not disk.
    const postgres = await startPostgres();
    const pg = await openPgFacets(await postgres.createDatabase("crawl_bench"), { max: 4 });
    const onPg = await crawlOn(pg.crawls!);
    await pg.close();
    await postgres.stop();
    console.log(`   web/crawl on PostgreSQL (this process's store, a local server): ${rate(PAGES, onPg.seconds)} = ${(readSeconds / onPg.seconds).toFixed(2)}x web/read; ${cpuLine(readCpu, onPg.cpu)} (this process only)`);
  }
}

if (process.argv.includes("--engine-only")) {
  await site.stop(true);
  process.exit(0);
}
// ── 2. the server process: web/read and web/crawl over HTTP.
const work = mkdtempSync(join(tmpdir(), "tb-crawl-server-"));
const data = join(work, "data");
const logPath = join(work, "server.log");
const serverArgs = [...loadBenchArgs, "--crawl-lanes", String(LANES), "--crawl-per-host", String(Math.min(16, LANES)), "--crawl-host-delay-ms", "0", "--crawl-lease-sec", "2"];
const startServer = (port?: number) => startServerProcess({ data, logPath, args: serverArgs, ...(binary ? { binary } : {}), ...(port ? { port } : {}) });
let server: ServerProcess = await startServer();

async function post(path: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

interface Bought {
  readonly id: string;
}
async function buyCrawl(): Promise<Bought> {
  const accepted = await post("/v1/web/crawl", { url: urls[0], limit: PAGES, max_depth: 20, sitemap: "skip" });
  return { id: String(accepted.crawl_id) };
}
async function status(crawl: Bought, cursor = 0, limit = 1): Promise<{ status: string; counts: Record<string, number>; pages: { url: string }[]; next_cursor: string; more_pages: boolean }> {
  const response = await fetch(`${server.base}/v1/web/crawl/${crawl.id}?cursor=${cursor}&limit=${limit}`); // payments off: the id opens it
  if (!response.ok) throw new Error(`crawl status: ${response.status} ${await response.text()}`);
  return (await response.json()) as never;
}
const ended = (s: string) => !["queued", "running"].includes(s);

{
  const readOne = (url: string) => post("/v1/web/read", { url, format: "text" });
  await mapBounded(urls.slice(0, 50), LANES, readOne);
  let start = performance.now();
  let cpu = cpuMs(server.pid);
  await mapBounded(urls, LANES, readOne);
  const readSeconds = seconds(start);
  const readCpu = cpuMs(server.pid) - cpu;

  const samples: { delivered: number; rss: number }[] = [];
  start = performance.now();
  cpu = cpuMs(server.pid);
  const crawl = await buyCrawl();
  let last;
  for (;;) {
    last = await status(crawl);
    samples.push({ delivered: last.counts.fetched! + last.counts.failed!, rss: readRss(server.pid).rss });
    if (ended(last.status)) break;
    await Bun.sleep(50);
  }
  const crawlSeconds = seconds(start);
  const crawlCpu = cpuMs(server.pid) - cpu;
  if (last.counts.fetched !== PAGES) throw new Error(`server crawl fetched ${last.counts.fetched} pages, expected ${PAGES}: ${JSON.stringify(last.counts)}`);
  console.log(`\n2. server process (${binary ? binary : "src/main.ts serve"}, SQLite, payments off), over HTTP:`);
  console.log(`   POST /v1/web/read of each page: ${rate(PAGES, readSeconds)}`);
  console.log(`   POST /v1/web/crawl to completed: ${rate(PAGES, crawlSeconds)} = ${(readSeconds / crawlSeconds).toFixed(2)}x web/read`);
  console.log(`   ${cpuLine(readCpu, crawlCpu)} (the server process, its threads included)`);
  console.log(`   server's resident memory over the crawl: ${memoryLine(samples)}`);
}

// ── 3. kill -9 half way, the server started again on the same data, the crawl resumed.
if (!process.argv.includes("--no-kill")) {
  hits.clear();
  const crawl = await buyCrawl();
  let atKill;
  for (;;) {
    atKill = await status(crawl);
    if (atKill.counts.fetched! + atKill.counts.failed! >= PAGES / 2 || ended(atKill.status)) break;
    await Bun.sleep(5);
  }
  await server.kill();
  const killedAt = performance.now();
  const delivered = atKill.counts.fetched! + atKill.counts.failed!;
  server = await startServer(server.port);
  let end;
  for (;;) {
    end = await status(crawl);
    if (ended(end.status)) break;
    await Bun.sleep(50);
  }
  const resumeSeconds = seconds(killedAt);
  const pages: { url: string }[] = [];
  for (let cursor = 0, more = true; more; ) {
    const page = await status(crawl, cursor, 200);
    pages.push(...page.pages);
    cursor = Number(page.next_cursor);
    more = page.more_pages;
  }
  const distinct = new Set(pages.map((p) => p.url)).size;
  const fetchedTwice = urls.filter((u) => (hits.get(new URL(u).pathname) ?? 0) > 1).length;
  console.log(`\n3. kill -9 of the server at ${delivered} of ${PAGES} pages delivered (seen by the last poll), started again on the same data:`);
  console.log(
    `   ${end.status} ${resumeSeconds.toFixed(1)} s after the kill (leases of 2 s lapse first); fetched ${end.counts.fetched}, ${pages.length} pages delivered, ${distinct} distinct URLs; ` +
      `${fetchedTwice} pages fetched twice (read or in flight at the kill, not yet delivered: delivered once)`,
  );
  if (end.counts.fetched !== PAGES || pages.length !== PAGES || distinct !== PAGES) throw new Error("the resumed crawl did not deliver every page exactly once");
}
await server.stop();
await site.stop(true);
