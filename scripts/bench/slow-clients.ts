/**
 * Slow clients (issue 15 §4, probe for §5): N connections each send a POST's headers at once and
 * then its body one byte per second, while this script asks `GET /health` every second on a fresh
 * connection. It reports what it sees: how long the server kept the slow connections, how they
 * ended (an answer's status, closed without one, still open at the end), and whether /health stayed
 * reachable. It decides nothing about the server's deadline settings: pass them with
 * `--server-args` (e.g. a request deadline) and compare.
 *
 *   node_modules/.bin/bun scripts/bench/slow-clients.ts [--clients 200] [--seconds 60] [--fd-limit 1024] [--server-args "..."] [--binary PATH]
 */
import { connect, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { median, option } from "./dev-set.ts";
import { startServerProcess } from "./server-process.ts";

const clients = Number(option("clients", "200"));
const seconds = Number(option("seconds", "60"));
const fdLimit = Number(option("fd-limit", "0"));
const binary = option("binary", "");
const serverArgs = option("server-args", "").split(/\s+/).filter(Boolean);

const work = mkdtempSync(join(tmpdir(), "tb-slow-"));
const server = await startServerProcess({
  data: join(work, "data"),
  logPath: join(work, "server.log"),
  binary: binary || undefined,
  args: ["--payments", "off", "--render", "off", ...serverArgs],
  ...(fdLimit > 0 ? { fdLimit } : {}),
});
console.log(
  `slow clients: ${clients} connections sending a 10,000-byte body one byte per second for ${seconds} s; /health probed every second; server ${binary || "src/main.ts"}${fdLimit ? `, open-file limit ${fdLimit}` : ""}${serverArgs.length ? `, ${serverArgs.join(" ")}` : ""}`,
);
console.log(`machine: ${navigator.hardwareConcurrency} cores, load average ${loadavg()[0]!.toFixed(1)} (shared)`);

interface Slow {
  socket: Socket;
  openedAt: number;
  /** How it ended: "answered 408", "closed without an answer", "refused" ... */
  end?: string;
  endedAt?: number;
  sent: number;
}

const started = performance.now();
const slow: Slow[] = [];
for (let i = 0; i < clients; i++) {
  const socket = connect({ host: "127.0.0.1", port: server.port });
  const entry: Slow = { socket, openedAt: performance.now(), sent: 0 };
  slow.push(entry);
  let answer = "";
  const finish = (how: string) => {
    if (entry.end) return;
    entry.end = how;
    entry.endedAt = performance.now();
  };
  socket.on("connect", () => {
    socket.write("POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n");
  });
  socket.on("data", (chunk) => {
    answer += chunk.toString("latin1");
    const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
    if (status) finish(`answered ${status}`);
  });
  socket.on("error", (error: NodeJS.ErrnoException) => finish(error.code === "ECONNREFUSED" ? "refused" : `error ${error.code ?? error.message}`));
  socket.on("close", () => finish("closed without an answer"));
  if (i % 50 === 49) await Bun.sleep(10);
}
const drip = setInterval(() => {
  for (const s of slow) {
    if (!s.end && s.socket.writable && s.sent < 9_999) {
      s.socket.write(s.sent === 0 ? "{" : " ");
      s.sent++;
    }
  }
}, 1000);

const probes: { ms: number; ok: boolean }[] = [];
let reported = 0;
while (performance.now() - started < seconds * 1000) {
  const t = performance.now();
  const ok = await fetch(`${server.base}/health`, { signal: AbortSignal.timeout(2000), headers: { connection: "close" } }).then(
    async (r) => (await r.arrayBuffer(), r.ok),
    () => false,
  );
  probes.push({ ms: performance.now() - t, ok });
  const elapsed = Math.floor((performance.now() - started) / 1000);
  if (elapsed >= reported + 10) {
    reported = elapsed - (elapsed % 10);
    const open = slow.filter((s) => !s.end).length;
    console.log(`  ${String(reported).padStart(4)} s: slow connections still open ${open}/${clients}; /health ${ok ? `${probes.at(-1)!.ms.toFixed(0)} ms` : "UNREACHABLE (2 s timeout)"}`);
  }
  await Bun.sleep(Math.max(0, 1000 - (performance.now() - t)));
}
clearInterval(drip);

const endings = new Map<string, number[]>();
for (const s of slow) {
  const key = s.end ?? `still open at ${seconds} s`;
  const held = ((s.endedAt ?? performance.now()) - s.openedAt) / 1000;
  endings.set(key, [...(endings.get(key) ?? []), held]);
}
console.log("\nslow connections:");
for (const [key, held] of endings) console.log(`  ${key.padEnd(32)} ${String(held.length).padStart(5)}   held median ${median(held).toFixed(1)} s, max ${Math.max(...held).toFixed(1)} s`);
const failed = probes.filter((p) => !p.ok).length;
const okMs = probes.filter((p) => p.ok).map((p) => p.ms);
console.log(`/health: ${probes.length - failed} of ${probes.length} probes answered (median ${okMs.length ? median(okMs).toFixed(1) : "-"} ms, max ${okMs.length ? Math.max(...okMs).toFixed(0) : "-"} ms); unreachable ${failed}`);

for (const s of slow) s.socket.destroy();
await server.stop();
rmSync(work, { recursive: true, force: true });
process.exit(0);
