/**
 * What signing evidence costs (issue 30; target < 0.2 ms a result, and no measurable change in
 * web/read reads per second), both measured beside a reference in the same run:
 *
 * 1. Per result: the seal (statement, RFC 8785 canonical JSON, Ed25519 JWS through jose/WebCrypto)
 *    of real web/read results (the extraction dev set's pages, else the test fixture pages), beside
 *    JSON.stringify of the same result, which sending it costs anyway. In-process, one result at a time.
 * 2. Reads per second: two whole services in this process (payments off, loopback pages), one
 *    signing as shipped and one with results left unsigned (the bench-only `unsignedEvidence`),
 *    taking turns round by round with the same clients over the same pages; each side's median
 *    reads/s over its rounds, and the ratio signed / unsigned.
 *
 * Run: node_modules/.bin/bun scripts/bench/evidence-signing.ts [--pages 60] [--sign-rounds 20] [--rounds 6] [--reads 400] [--clients 16] [--start-first signed|unsigned]
 * The machine is shared: read the ratio, not the absolute figures.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { createEvidenceSeal } from "../../src/evidence/seal.ts";
import { createLogger } from "../../src/log.ts";
import { noteRead } from "../../src/web/evidence-facts.ts";
import { readLocalSource } from "../../src/web/read-local.ts";
import { DEV_SET_DIR, loadDevPages, median, option, servePages } from "./dev-set.ts";

const pageLimit = Number(option("pages", "60"));
const signRounds = Number(option("sign-rounds", "20"));
const rounds = Number(option("rounds", "6"));
const readsPerRound = Number(option("reads", "400"));
const clients = Number(option("clients", "16"));

function loadPages(): { from: string; pages: string[] } {
  if (existsSync(join(DEV_SET_DIR, "html"))) return { from: DEV_SET_DIR, pages: loadDevPages(DEV_SET_DIR, pageLimit) };
  const dir = join(import.meta.dir, "../../test/fixtures/pages");
  return { from: dir, pages: readdirSync(dir).filter((f) => f.endsWith(".html")).map((f) => readFileSync(join(dir, f), "utf8")) };
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function perResult(pages: string[]): Promise<void> {
  const encoder = new TextEncoder();
  const results = [];
  for (const [i, html] of pages.entries()) {
    try {
      const read = await readLocalSource({ bytes: encoder.encode(html), url: `https://bench.example/p/${i}.html`, contentType: "text/html" }, { format: "text", maxChars: 20_000 });
      results.push(noteRead(read, read));
    } catch {
      // pages the engine refuses (e.g. no text) are not evidence
    }
  }
  const seal = createEvidenceSeal(await openEvidenceKeys(":memory:"));
  const call = { server: "https://tollbooth.example", payment: { network: "eip155:8453", transaction: `0x${"ab".repeat(32)}`, payer: null, paymentId: null } };
  for (const r of results) await seal.seal(r, call); // warm-up
  const signMs: number[] = [];
  const stringifyMs: number[] = [];
  for (let round = 0; round < signRounds; round++) {
    for (const r of results) {
      const t0 = performance.now();
      await seal.seal(r, call);
      const t1 = performance.now();
      JSON.stringify(r);
      stringifyMs.push(performance.now() - t1);
      signMs.push(t1 - t0);
    }
  }
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const chars = median(results.map((r) => r.text.length));
  console.log(`per result (${results.length} results, median ${chars} characters of text, ${signMs.length} seals):`);
  console.log(`  sign             mean ${mean(signMs).toFixed(4)} ms  p50 ${percentile(signMs, 50).toFixed(4)} ms  p99 ${percentile(signMs, 99).toFixed(4)} ms   (target < 0.2 ms)`);
  console.log(`  JSON.stringify   mean ${mean(stringifyMs).toFixed(4)} ms  p50 ${percentile(stringifyMs, 50).toFixed(4)} ms  p99 ${percentile(stringifyMs, 99).toFixed(4)} ms   (reference: sending the result)`);
}

async function start(unsigned: boolean): Promise<RunningService> {
  const config = loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--host", "127.0.0.1", "--unsafe-allow-loopback-targets", "--memory-soft-limit-mb", "0", "--render", "off", "--rate-limit-per-min", "1000000000"], env: {} });
  return startService(config, { log: createLogger({ level: "error", sink: () => {} }), ...(unsigned ? { unsignedEvidence: true } : {}) });
}

async function readRound(base: string, site: string, pageCount: number, offset: number): Promise<{ perSec: number; signed: number }> {
  let next = 0;
  let signed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < readsPerRound; i = next++) {
        const response = await fetch(`${base}/v1/web/read`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: `${site}/p/${(i + offset) % pageCount}.html` }),
        });
        const body = (await response.json()) as { attestation?: unknown; error?: string };
        if (response.status !== 200) throw new Error(`a read answered ${response.status} ${body.error}: the round would not measure reads`);
        if (body.attestation) signed++;
      }
    }),
  );
  return { perSec: readsPerRound / ((performance.now() - started) / 1000), signed };
}

const { from, pages } = loadPages();
console.log(`pages: ${pages.length} from ${from}`);
await perResult(pages);

const site = servePages(pages.map((p) => new TextEncoder().encode(p)));
const siteUrl = `http://127.0.0.1:${site.port}`;
// --start-first unsigned: the other order of starting (each service has its own extraction threads).
const unsignedFirst = option("start-first", "signed") === "unsigned";
const unsignedEarly = unsignedFirst ? await start(true) : undefined;
const signedService = await start(false);
const unsignedService = unsignedEarly ?? (await start(true));
const sides = [
  { name: "signed", base: signedService.server.url.toString().replace(/\/$/, ""), rates: [] as number[], signed: 0 },
  { name: "unsigned", base: unsignedService.server.url.toString().replace(/\/$/, ""), rates: [] as number[], signed: 0 },
];
for (const side of sides) await readRound(side.base, siteUrl, pages.length, 0); // warm-up round each
for (let round = 0; round < rounds; round++) {
  // Alternate who goes first, so neither side always reads after the other's garbage.
  for (const side of round % 2 ? [...sides].reverse() : sides) {
    const { perSec, signed } = await readRound(side.base, siteUrl, pages.length, round * 7);
    side.rates.push(perSec);
    side.signed += signed;
  }
}
console.log(`web/read through the service (${rounds} rounds of ${readsPerRound} reads each side, ${clients} clients, taking turns):`);
for (const side of sides) console.log(`  ${side.name.padEnd(9)} median ${median(side.rates).toFixed(1)} reads/s  (rounds: ${side.rates.map((r) => r.toFixed(0)).join(", ")}; results carrying an attestation: ${side.signed})`);
console.log(`  ratio signed / unsigned: ${(median(sides[0]!.rates) / median(sides[1]!.rates)).toFixed(3)}`);
await signedService.close();
await unsignedService.close();
site.stop(true);
process.exit(0);
