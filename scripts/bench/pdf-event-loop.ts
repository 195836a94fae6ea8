/**
 * What a PDF read costs the rest of the server: GET /health is polled every 10 ms while 8 dense PDFs
 * (20 pages each) are read through POST /v1/pdf/read, with PDFs on their own thread (the default)
 * and, in the same run, read on the server's thread. The service runs in this process, so a stalled
 * event loop stalls the poller too: the figure is the longest gap between two answered polls (and
 * how many were answered), beside the PDF reads' wall time.
 *   node_modules/.bin/bun scripts/bench/pdf-event-loop.ts [--pdf FILE]   (default: the dev set's d16, else a test fixture)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWebEngineFor, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";

const at = process.argv.indexOf("--pdf");
const shared = "/work/shared/bench/pdf/data/d16.pdf";
const file = at > 0 ? (process.argv[at + 1] as string) : existsSync(shared) ? shared : join(import.meta.dir, "../../test/fixtures/pdf/long-text.pdf");
const pdf = readFileSync(file);
const site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(pdf, { headers: { "content-type": "application/pdf" } }) });

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

async function measure(label: string, onServerThread: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tb-pdf-loop-"));
  const config = loadConfig({ argv: ["--host", "127.0.0.1", "--port", "0", "--data", dir, "--unsafe-allow-loopback-targets", "--render", "off", "--log-level", "error", "--rate-limit-per-min", "100000"], env: {} });
  const service = await startService(config, onServerThread ? { web: createWebEngineFor(config, undefined) } : {});
  const base = service.server.url.href;
  const read = () => fetch(new URL("/v1/pdf/read", base), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: new URL("/d.pdf", site.url).href }) }).then((r) => r.json());
  await read(); // warm: mupdf's WASM instantiated
  const health: number[] = [];
  const answeredAt: number[] = [];
  let reading = true;
  const poll = (async () => {
    while (reading) {
      const started = performance.now();
      await fetch(new URL("/health", base)).then((r) => r.arrayBuffer());
      health.push(performance.now() - started);
      answeredAt.push(performance.now());
      await Bun.sleep(10);
    }
  })();
  const started = performance.now();
  await Promise.all(Array.from({ length: 8 }, read));
  const readMs = performance.now() - started;
  reading = false;
  await poll;
  await service.close();
  rmSync(dir, { recursive: true, force: true });
  health.sort((a, b) => a - b);
  const gaps = [answeredAt[0]! - started, ...answeredAt.slice(1).map((t, i) => t - answeredAt[i]!)];
  console.log(
    `${label.padEnd(24)} longest gap between answered /health polls ${Math.max(...gaps).toFixed(0)} ms, ${health.length} polls answered, /health p95 ${percentile(health, 0.95).toFixed(1)} ms; 8 PDFs in ${readMs.toFixed(0)} ms`,
  );
}

console.log(`PDF: ${file} (${(pdf.byteLength / 1024).toFixed(0)} KB)`);
await measure("PDF thread (default)", false);
await measure("on the server's thread", true);
site.stop(true);
process.exit(0);
