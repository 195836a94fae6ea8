/**
 * web/map on a 50,000-URL sitemap set on loopback: robots.txt names an index of 10 gzip sitemaps of
 * 5,000 URLs each. Prints the time to map it (and the resident memory it added) beside web/read's
 * time for one page of the same site, in the same run, through the same web engine.
 *
 *   node_modules/.bin/bun scripts/bench/web-map.ts [--rounds 3]
 */
import { loadavg } from "node:os";
import { gzipSync } from "node:zlib";
import { mapSite } from "../../src/crawl/site-map.ts";
import { createWebEngine } from "../../src/web/engine.ts";
import { option } from "./dev-set.ts";

const rounds = Number(option("rounds", "3"));
const FILES = 10;
const PER_FILE = 5_000;

const files = new Map<string, { body: Uint8Array<ArrayBuffer> | string; type: string }>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const file = files.get(new URL(request.url).pathname);
    return file ? new Response(file.body, { headers: { "content-type": file.type } }) : new Response("not found", { status: 404 });
  },
});
const origin = `http://127.0.0.1:${server.port}`;
files.set("/robots.txt", { body: `User-agent: *\nDisallow: /private/\nSitemap: ${origin}/sitemap-index.xml\n`, type: "text/plain" });
files.set("/sitemap-index.xml", {
  body: `<?xml version="1.0"?><sitemapindex>${Array.from({ length: FILES }, (_, f) => `<sitemap><loc>${origin}/maps/${f}.xml.gz</loc></sitemap>`).join("")}</sitemapindex>`,
  type: "application/xml",
});
for (let f = 0; f < FILES; f++) {
  const entries = Array.from({ length: PER_FILE }, (_, i) => `<url><loc>${origin}/docs/${f}/page-${i}</loc><lastmod>2026-11-${String((i % 28) + 1).padStart(2, "0")}</lastmod></url>`).join("");
  files.set(`/maps/${f}.xml.gz`, { body: gzipSync(`<?xml version="1.0"?><urlset>${entries}</urlset>`), type: "application/gzip" });
}
files.set("/", { body: `<!doctype html><html><head><title>Home</title></head><body><main><h1>Home</h1><p>${"A paragraph of the start page. ".repeat(40)}</p><a href="/docs/0/page-0">Docs</a></main></body></html>`, type: "text/html" });

const web = createWebEngine({ userAgent: "Tollbooth/bench (+https://example.com)", allowLoopbackTargets: true });
const signal = new AbortController().signal;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const mapTimes: number[] = [];
/** CPU time of this process (the map and the loopback site serving it) per map: steadier than wall time on a loaded machine. */
const mapCpu: number[] = [];
const readTimes: number[] = [];
const rssAdded: number[] = [];
for (let round = 0; round < rounds; round++) {
  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  let start = performance.now();
  const cpuBefore = process.cpuUsage();
  const mapped = await mapSite({ url: `${origin}/`, limit: 100_000, sitemap: "only" }, { web, signal });
  mapTimes.push(performance.now() - start);
  const cpu = process.cpuUsage(cpuBefore);
  mapCpu.push((cpu.user + cpu.system) / 1000);
  clearInterval(sampler);
  rssAdded.push(Math.max(peak, process.memoryUsage().rss) - rssBefore);
  if (mapped.count !== FILES * PER_FILE) throw new Error(`mapped ${mapped.count} URLs, expected ${FILES * PER_FILE}`);
  start = performance.now();
  await web.read({ url: `${origin}/`, format: "text", maxChars: 20_000 }, signal);
  readTimes.push(performance.now() - start);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(
  `web/map, ${FILES * PER_FILE} URLs (index of ${FILES} gzip sitemaps): median ${median(mapTimes).toFixed(0)} ms (${mapTimes.map((t) => t.toFixed(0)).join(", ")}), CPU ${median(mapCpu).toFixed(0)} ms, resident memory added ${mb(median(rssAdded))} MB`,
);
console.log(`web/read, one page of the same site:           median ${median(readTimes).toFixed(1)} ms (${readTimes.map((t) => t.toFixed(1)).join(", ")})`);
await server.stop(true);
