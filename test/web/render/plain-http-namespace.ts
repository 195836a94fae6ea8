/**
 * Runs inside a loopback-only network namespace (see plain-http.test.ts), as root: the fixture page is
 * served on port 80 of 127.0.0.1, which only this namespace can reach. Two http hosts, both 127.0.0.1 for
 * the test resolver: `refused.example.com` while nothing listens on 443 (connections refused), then
 * `silent.example.com` once a listener on 443 accepts and never answers. Each is read three times with
 * render:true through the real engine, renderer and Chromium. Prints one JSON object (PlainHttpReport) on
 * stdout and each read's latency on stderr.
 * Usage (root): unshare -n sh -c 'ip link set lo up && exec bun test/render/plain-http-namespace.ts [chromium switch ...]' 
 */
import http from "node:http";
import net from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../../../src/errors.ts";
import { createWebEngine } from "../../../src/web/engine.ts";
import type { ProxyDecision } from "../../../src/web/render/proxy-guard.ts";
import { createRenderer } from "../../../src/web/render/renderer.ts";
import { DATA_SENTENCE, RENDER_FIXTURES } from "./render-site.ts";

export interface PlainHttpRead {
  host: string;
  ok: boolean;
  ms: number;
  code?: string;
  finalUrl?: string;
  rendered?: boolean;
  hasScriptText?: boolean;
}

export interface PlainHttpReport {
  reads: PlainHttpRead[];
  /** Connections the 443 listener accepted (silent phase). */
  accepted443: number;
  /** Request paths the port-80 server saw, with their Host. */
  served: string[];
  /** Every proxy decision on a render lane. */
  laneDecisions: ProxyDecision[];
}

const USER_AGENT = "Tollbooth/test (+https://example.invalid/contact)";
const served: string[] = [];
const page = http.createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  served.push(`${req.headers.host}${path}`);
  if (path === "/robots.txt") return void res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nAllow: /\n");
  if (path === "/data.json") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ sentence: DATA_SENTENCE }));
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(readFileSync(join(RENDER_FIXTURES, "script-built.html")));
});
await new Promise<void>((resolve) => page.listen(80, "127.0.0.1", () => resolve()));

const resolver = async () => ["127.0.0.1"];
const laneDecisions: ProxyDecision[] = [];
const renderer = createRenderer({
  userAgent: USER_AGENT,
  policy: { allowLoopbackTargets: true, resolver },
  onProxyDecision: (d) => {
    if (d.lane !== undefined) laneDecisions.push(d);
  },
  extraBrowserArgs: process.argv.slice(2),
});
const engine = createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true, resolver, renderer: (url, signal, check) => renderer.render(url, signal, check) });
await renderer.warm();

const reads: PlainHttpRead[] = [];
async function readThrice(host: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    try {
      const result = await engine.read({ url: `http://${host}/page-${i}.html`, render: true, format: "text", maxChars: 20_000 }, AbortSignal.timeout(25_000));
      reads.push({
        host,
        ok: true,
        ms: Math.round(performance.now() - started),
        finalUrl: result.final_url,
        rendered: result.javascript_rendered,
        hasScriptText: result.text.includes("Built by script"),
      });
    } catch (error) {
      reads.push({ host, ok: false, ms: Math.round(performance.now() - started), code: error instanceof ApiError ? error.code : String(error) });
    }
  }
}

await readThrice("refused.example.com");
let accepted443 = 0;
const held: net.Socket[] = [];
const silent = net.createServer((socket) => {
  accepted443++;
  held.push(socket);
  socket.on("error", () => undefined);
});
await new Promise<void>((resolve) => silent.listen(443, "127.0.0.1", () => resolve()));
await readThrice("silent.example.com");

await renderer.close();
for (const socket of held) socket.destroy();
const report: PlainHttpReport = { reads, accepted443, served, laneDecisions };
// Figures for people on stderr; the report for the test on stdout.
for (const read of reads) console.error(`${read.host.padEnd(20)} ${String(read.ms).padStart(5)} ms  ${read.ok ? read.finalUrl : `failed ${read.code}`}`);
console.error(`connections accepted on the silent 443: ${accepted443}`);
console.log(JSON.stringify(report));
process.exit(0);
