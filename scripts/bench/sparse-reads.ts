/**
 * Reads that come one at a time after a quiet spell: what a read costs (latency, the server's CPU) when the
 * server has gone quiet before it. Each executable is warmed with 20 dev-set reads, then reads with `gap` seconds
 * of quiet before each. Binaries only; two run side by side, alternating reads.
 *   node_modules/.bin/bun scripts/bench/sparse-reads.ts --binary A --reference B [--gaps 0.5,1.5,3.5] [--reads 6]
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { loadDevPages, DEV_SET_DIR, median, option, readRss, servePages } from "./dev-set.ts";
import { loadBenchArgs, startServerProcess } from "./server-process.ts";

const binaries = [option("binary", "dist/tollbooth"), option("reference", "")].filter(Boolean);
const gaps = option("gaps", "0.5,1.5,3.5").split(",").map(Number);
const reads = Number(option("reads", "6"));
const pages = loadDevPages(DEV_SET_DIR, 40).map((html) => new TextEncoder().encode(html) as Uint8Array<ArrayBuffer>);
const site = servePages(pages);
const work = mkdtempSync(join(tmpdir(), "tb-sparse-"));
const servers = await Promise.all(binaries.map((binary, i) => startServerProcess({ data: join(work, `d${i}`), logPath: join(work, `l${i}.log`), binary, args: loadBenchArgs })));
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
let page = 0;
const read = async (base: string) => {
  const started = performance.now();
  const res = await fetch(`${base}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: `http://127.0.0.1:${site.port}/p/${page++ % pages.length}.html` }) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`read ${res.status}`);
  return performance.now() - started;
};
for (const s of servers) for (let i = 0; i < 20; i++) await read(s.base);
console.log(`load average ${loadavg()[0]!.toFixed(1)}`);
for (const gap of gaps) {
  const latency = servers.map(() => [] as number[]);
  const cpu = servers.map(() => [] as number[]);
  for (let r = 0; r < reads; r++) {
    await Bun.sleep(gap * 1000);
    for (const [i, s] of servers.entries()) {
      const before = cpuMs(s.pid);
      latency[i]!.push(await read(s.base));
      await Bun.sleep(100);
      cpu[i]!.push(cpuMs(s.pid) - before);
    }
  }
  console.log(`gap ${gap} s: ${servers.map((s, i) => `${binaries[i]}: median ${median(latency[i]!).toFixed(1)} ms (${latency[i]!.map((v) => v.toFixed(0)).join(" ")}), CPU ${median(cpu[i]!).toFixed(0)} ms a read, RSS ${(readRss(s.pid).rss / 1048576).toFixed(0)} MiB`).join(" | ")}`);
}
console.log(`load average ${loadavg()[0]!.toFixed(1)}`);
for (const s of servers) s.stop();
site.stop(true);
