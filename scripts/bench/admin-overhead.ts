/**
 * What the admin listener costs the paid path (issue 20): `POST /v1/web/read` and `GET /health`
 * throughput of two identical servers, one without the admin listener and one with it while
 * this process scrapes its `/metrics` and `/api/summary` every second, taking turns in the same
 * run (A B B A A B ...), so the machine's drift falls on both sides alike. Target: within 3 %.
 *
 * Run: node_modules/.bin/bun scripts/bench/admin-overhead.ts [--rounds 6] [--seconds 5] [--clients 8]
 *        [--pages 30] (dev-set pages served on loopback; the test fixtures when the dev set is absent)
 *        [--binary PATH] (the servers are that compiled executable instead of `bun src/main.ts`)
 * Prints each turn's requests/s and the server's CPU per request (user + system, /proc), and per
 * route the medians of each side and their difference. On a shared machine throughput swings with
 * the neighbours' load; CPU per request barely does, so it is the figure to judge the cost by.
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

/** CPU time (user + system) of a process in milliseconds (/proc, 100 ticks a second). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Turn {
  readonly perSecond: number;
  /** Server CPU per answered request, in microseconds. */
  readonly cpuUs: number;
}

/** `clients` loops for `seconds`; completed 200s per second and the server's CPU per request. */
async function load(base: string, route: "read" | "health", pid: number): Promise<Turn> {
  const cpuBefore = cpuMs(pid);
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
  return { perSecond: done / ((performance.now() - started) / 1000), cpuUs: ((cpuMs(pid) - cpuBefore) * 1000) / Math.max(1, done) };
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
  await load(side.process.baseUrl, "read", side.process.proc.pid);
  await load(side.process.baseUrl, "health", side.process.proc.pid);
}

const results: Record<"read" | "health", { off: Turn[]; on: Turn[] }> = { read: { off: [], on: [] }, health: { off: [], on: [] } };
let totalScrapes = 0;
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
  for (const side of order) {
    const server = side === "on" ? on : off;
    const scraper = side === "on" ? scrape(on.adminUrl!) : undefined;
    for (const route of ["read", "health"] as const) results[route][side].push(await load(server.process.baseUrl, route, server.process.proc.pid));
    totalScrapes += (await scraper?.stop()) ?? 0;
  }
  const last = (route: "read" | "health", side: "off" | "on") => results[route][side].at(-1)!;
  console.log(
    `round ${round + 1}: web/read off ${last("read", "off").perSecond.toFixed(1)} req/s ${last("read", "off").cpuUs.toFixed(0)} µs CPU, on ${last("read", "on").perSecond.toFixed(1)} req/s ${last("read", "on").cpuUs.toFixed(0)} µs; ` +
      `/health off ${last("health", "off").perSecond.toFixed(0)} req/s ${last("health", "off").cpuUs.toFixed(1)} µs, on ${last("health", "on").perSecond.toFixed(0)} req/s ${last("health", "on").cpuUs.toFixed(1)} µs`,
  );
}

const metricsBytes = (await (await fetch(`${on.adminUrl}/metrics`)).text()).length;
const change = (a: number, b: number) => `${b >= a ? "+" : ""}${(((b - a) / a) * 100).toFixed(1)} %`;
for (const route of ["read", "health"] as const) {
  const rate = (side: "off" | "on") => median(results[route][side].map((t) => t.perSecond));
  const cpu = (side: "off" | "on") => median(results[route][side].map((t) => t.cpuUs));
  console.log(
    `${route === "read" ? "web/read" : "/health "}  medians without admin / with admin scraped every second: ` +
      `${rate("off").toFixed(1)} / ${rate("on").toFixed(1)} req/s (${change(rate("off"), rate("on"))}), ` +
      `server CPU ${cpu("off").toFixed(1)} / ${cpu("on").toFixed(1)} µs a request (${change(cpu("off"), cpu("on"))})`,
  );
}
console.log(`${totalScrapes} scrapes of /metrics (${metricsBytes} bytes) and /api/summary while measured; target: within 3 %`);
await off.process.stop();
await on.process.stop();
site.stop(true);
process.exit(0);
