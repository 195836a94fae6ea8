/**
 * The read path without extraction (vet the target, robots.txt, connect, read the body under the
 * cap) over loopback, 16 concurrent reads: the connector in use (Bun's fetch pinned to the vetted
 * address) beside the reference it replaced (node:http with a `lookup` pinned to that address).
 * Each run is a fresh child process, so RSS figures are the connector's own; runs alternate.
 *
 * Run: node_modules/.bin/bun scripts/bench/read-path.ts [--reads 4000] [--rounds 2]
 */
import http from "node:http";
import type { LookupFunction } from "node:net";
import { ApiError } from "../../src/errors.ts";
import { createWebEngine } from "../../src/web/engine.ts";
import { type Connector, createPinnedConnector } from "../../src/web/fetch/http-connector.ts";
import { DEV_SET_DIR, loadDevPages, option, readRss, servePages } from "./dev-set.ts";

type Variant = "fetch" | "node-http";

/** The reference: node:http, the socket pinned by `lookup` (http only; loopback has no TLS here). */
const nodeHttpConnector: Connector = (request) =>
  new Promise((resolve, reject) => {
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: request.address, family: 4 }]);
      else callback(null, request.address, 4);
    };
    const req = http.request({ host: request.url.hostname, port: request.port, path: `${request.url.pathname}${request.url.search}`, headers: request.headers, lookup, family: 4, agent: false });
    req.on("error", (error) => reject(new ApiError("SOURCE_UNREACHABLE", { cause: error })));
    req.on("response", (res) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      resolve({ status: res.statusCode ?? 0, headers, body: res, close: () => (res.destroy(), req.destroy()) });
    });
    req.end();
  });

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function runChild(variant: Variant, origin: string, reads: number, pages: number): Promise<void> {
  const engine = createWebEngine({
    userAgent: "Tollbooth/bench (+https://example.com/contact)",
    allowLoopbackTargets: true,
    connector: variant === "fetch" ? createPinnedConnector() : nodeHttpConnector,
  });
  const signal = new AbortController().signal;
  await engine.fetchBytes(`${origin}/p/0.html`, { maxBytes: 1 << 20, signal });
  Bun.gc(true);
  const base = readRss().rss / 1024 / 1024;
  const cpuBefore = cpuMs();
  const started = performance.now();
  let issued = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (issued < reads) {
        const page = issued++ % pages;
        bytes += (await engine.fetchBytes(`${origin}/p/${page}.html`, { maxBytes: 1 << 20, signal })).bytes.byteLength;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const report = { variant, rate: reads / seconds, cpuPerRead: (cpuMs() - cpuBefore) / reads, base, peakAbove: readRss().peak / 1024 / 1024 - base, mb: bytes / 1e6 };
  console.log(JSON.stringify(report));
}

async function runParent(): Promise<void> {
  const reads = Number(option("reads", "4000"));
  const rounds = Number(option("rounds", "2"));
  const pages = loadDevPages(DEV_SET_DIR).map((page) => new TextEncoder().encode(page));
  const site = servePages(pages);
  console.log(`${reads} reads of ${pages.length} dev-set pages, 16 at a time, each run in a fresh process; extraction not included`);
  console.log("connector    reads/s   CPU ms/read   RSS before   peak RSS above it");
  for (let round = 0; round < rounds; round++) {
    for (const variant of ["node-http", "fetch"] as const) {
      const child = Bun.spawn([process.execPath, import.meta.path, "--child", variant, "--origin", `http://127.0.0.1:${site.port}`, "--reads", String(reads), "--pages", String(pages.length)], { stdout: "pipe", stderr: "inherit" });
      const out = await new Response(child.stdout).text();
      await child.exited;
      const r = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { variant: string; rate: number; cpuPerRead: number; base: number; peakAbove: number };
      console.log(`${r.variant.padEnd(10)} ${r.rate.toFixed(0).padStart(9)} ${r.cpuPerRead.toFixed(2).padStart(13)} ${r.base.toFixed(0).padStart(9)} MiB ${r.peakAbove.toFixed(0).padStart(12)} MiB`);
    }
  }
  await site.stop(true);
}

if (process.argv.includes("--child")) {
  await runChild(option("child", "fetch") as Variant, option("origin", ""), Number(option("reads", "4000")), Number(option("pages", "1")));
} else {
  await runParent();
}
