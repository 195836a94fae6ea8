/**
 * A request's fixed CPU cost in process (issue 15 §6), without sockets: our request handler
 * (the server's wrapper and the app, as `serve` builds them, log lines to a file) beside bare
 * Elysia's `app.handle`, each given the same pre-built GET requests, taking turns in blocks so a
 * shared machine's drift falls on both. Prints microseconds of CPU per request (process.cpuUsage)
 * and the ratio. Complements request-cost.ts (wrk over sockets), which needs a quiet machine.
 *
 *   node_modules/.bin/bun scripts/bench/request-cpu.ts [--requests 20000] [--blocks 5] [--path /health] [--ours-args "--log-requests errors-and-paid"]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { buildService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { median, option } from "./dev-set.ts";

const requests = Number(option("requests", "20000"));
const blocks = Number(option("blocks", "5"));
const paths = option("path", "/health,/v1/capabilities").split(",");
const oursArgs = option("ours-args", "").split(/\s+/).filter(Boolean);

const work = mkdtempSync(join(tmpdir(), "tb-bench-cpu-"));
const config = loadConfig({ argv: ["--data", join(work, "data"), "--payments", "off", "--render", "off", "--log-file", join(work, "server.log"), ...oursArgs], env: {} });
const service = await buildService(config);

const startedAt = Date.now();
const bare = new Elysia().get("/health", () => ({ ok: true, service: "bare", version: "0.0.0", uptime_sec: Math.round((Date.now() - startedAt) / 1000), open_for_work: true, payments: "off" }));

const origin = "http://127.0.0.1:8080";
const makeRequests = (path: string) => Array.from({ length: requests }, () => new Request(origin + path, { headers: { host: "127.0.0.1:8080", "user-agent": "wrk" } }));

async function cpuPerRequest(run: (request: Request) => Promise<Response> | Response, path: string): Promise<number> {
  const batch = makeRequests(path);
  const before = process.cpuUsage();
  for (const request of batch) {
    const response = await run(request);
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    await response.arrayBuffer();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / batch.length;
}

const targets: [string, (r: Request) => Promise<Response> | Response, string][] = [
  ["bare Elysia GET /health", (r) => bare.handle(r), "/health"],
  ...paths.map((p) => [`ours GET ${p}`, (r: Request) => service.handle(r, "127.0.0.1"), p] as [string, (r: Request) => Promise<Response>, string]),
];
for (const [, run, path] of targets) await cpuPerRequest(run, path); // warm-up
const figures = new Map<string, number[]>(targets.map(([name]) => [name, []]));
for (let block = 0; block < blocks; block++) {
  for (const [name, run, path] of targets) figures.get(name)!.push(await cpuPerRequest(run, path));
}
console.log(`CPU per request in process, ${requests} requests × ${blocks} blocks, taking turns${oursArgs.length ? `; ours with ${oursArgs.join(" ")}` : ""}`);
const bareUs = median(figures.get(targets[0]![0])!);
for (const [name] of targets) {
  const us = median(figures.get(name)!);
  console.log(`  ${name.padEnd(32)} ${us.toFixed(2).padStart(7)} µs   ${(bareUs / us).toFixed(2)}× bare's rate`);
}
await service.close();
rmSync(work, { recursive: true, force: true });
