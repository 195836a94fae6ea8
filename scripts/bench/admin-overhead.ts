/**
 * What the admin listener costs the paid path (issue 20): `POST /v1/web/read` and `GET /health`
 * throughput of two identical servers, one without the admin listener and one with it while
 * this process scrapes its `/metrics` and `/api/summary` every second, taking turns in the same
 * run (A B B A A B ...), so the machine's drift falls on both sides alike. Target: within 3 %.
 *
 * Run: node_modules/.bin/bun scripts/bench/admin-overhead.ts [--rounds 6] [--seconds 5] [--clients 8]
 *        [--pages 30] (dev-set pages served on loopback; the test fixtures when the dev set is absent)
 *        [--binary PATH] (the servers are that compiled executable instead of `bun src/main.ts`)
 * Prints each turn's requests/s and, per route, the medians of each side and their difference.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess, type StartedProcess } from "../../test/support/spawn-binary.ts";
import { DEV_SET_DIR, loadDevPages, median, option, servePages } from "./dev-set.ts";

const root = join(import.meta.dir, "../..");
const rounds = Number(option("rounds", "6"));
const seconds = Number(option("seconds", "5"));
const clients = Number(option("clients", "8"));
const binary = option("binary", "");

const pageTexts = existsSync(join(DEV_SET_DIR, "html"))
  ? loadDevPages(DEV_SET_DIR, Number(option("pages", "30")))
  : ["article.html", "short.html"].map((f) => readFileSync(join(root, "test/fixtures/pages", f), "utf8"));
const site = servePages(pageTexts.map((t) => new TextEncoder().encode(t)));
const pageUrls = pageTexts.map((_, i) => `http://127.0.0.1:${site.port}/p/${i}.html`);

async function startServer(admin: boolean): Promise<{ process: StartedProcess; adminUrl?: string }> {
  const data = mkdtempSync(join(tmpdir(), `tb-admin-bench-${admin ? "on" : "off"}-`));
  const args = ["serve", "--port", "0", "--data", data, "--unsafe-allow-loopback-targets", "--render", "off", "--log-level", "warn", "--rate-limit-per-min", "1000000000", ...(admin ? ["--admin-port", "0"] : [])];
  const cmd = binary ? [binary, ...args] : [process.execPath, join(root, "src/main.ts"), ...args];
  const started = await startProcess(cmd, { cwd: data, timeoutMs: 60_000 });
  if (!admin) return { process: started };
  const mark = JSON.parse(readFileSync(join(data, "tollbooth.pid"), "utf8")) as { adminPort: number };
  return { process: started, adminUrl: `http://127.0.0.1:${mark.adminPort}` };
}

/** `clients` loops for `seconds`; returns completed 200s per second. */
async function load(base: string, route: "read" | "health"): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  let next = 0;
  const client = async () => {
    while (performance.now() < deadline) {
      const response =
        route === "health"
          ? await fetch(`${base}/health`)
          : await fetch(`${base}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: pageUrls[next++ % pageUrls.length] }) });
      await response.arrayBuffer();
      if (response.status === 200) done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  return done / ((performance.now() - started) / 1000);
}

/** Scrapes the admin listener every second (as Prometheus and an open dashboard would) until stopped. */
function scrape(adminUrl: string): { stop(): Promise<number> } {
  let scrapes = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const tick = performance.now();
      await Promise.all([fetch(`${adminUrl}/metrics`).then((r) => r.text()), fetch(`${adminUrl}/api/summary`).then((r) => r.text())]);
      scrapes++;
      await Bun.sleep(Math.max(0, 1000 - (performance.now() - tick)));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return scrapes;
    },
  };
}

const off = await startServer(false);
const on = await startServer(true);
console.log(`admin-overhead: ${rounds} rounds of ${seconds} s per route and side, ${clients} clients, ${pageUrls.length} pages${binary ? `, binary ${binary}` : ", from source"}`);
// Warm both (JIT, extraction threads, robots cache).
for (const side of [off, on]) {
  await load(side.process.baseUrl, "read");
  await load(side.process.baseUrl, "health");
}

const results: Record<"read" | "health", { off: number[]; on: number[] }> = { read: { off: [], on: [] }, health: { off: [], on: [] } };
let totalScrapes = 0;
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
  for (const side of order) {
    const server = side === "on" ? on : off;
    const scraper = side === "on" ? scrape(on.adminUrl!) : undefined;
    for (const route of ["read", "health"] as const) results[route][side].push(await load(server.process.baseUrl, route));
    totalScrapes += (await scraper?.stop()) ?? 0;
  }
  console.log(
    `round ${round + 1}: web/read off ${results.read.off.at(-1)!.toFixed(1)} on ${results.read.on.at(-1)!.toFixed(1)} req/s; ` +
      `/health off ${results.health.off.at(-1)!.toFixed(0)} on ${results.health.on.at(-1)!.toFixed(0)} req/s`,
  );
}

const metricsBytes = (await (await fetch(`${on.adminUrl}/metrics`)).text()).length;
for (const route of ["read", "health"] as const) {
  const a = median(results[route].off);
  const b = median(results[route].on);
  console.log(`${route === "read" ? "web/read" : "/health "}  median without admin ${a.toFixed(1)} req/s, with admin scraped every second ${b.toFixed(1)} req/s: ${(((b - a) / a) * 100).toFixed(1)} %`);
}
console.log(`${totalScrapes} scrapes of /metrics (${metricsBytes} bytes) and /api/summary while measured; target: within 3 %`);
await off.process.stop();
await on.process.stop();
site.stop(true);
process.exit(0);
