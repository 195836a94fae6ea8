/**
 * Evidence keys on PostgreSQL beside the key file (issue 28): what one signature costs when the keys
 * come from the shared database (src/evidence/key-set-pg.ts) against the data folder's key file
 * (the reference), in the same run. Each signature is a whole seal of a noted web/read result
 * (`createEvidenceSeal(keys).seal`, as the paid path does). Neither engine should touch its store per
 * signature: the file engine stats its file at most once a second, the PostgreSQL engine looks up
 * the current kid at most once a second in the background. Rounds alternate between the engines.
 * PostgreSQL is a real server on loopback started for the run (test/support/postgres.ts).
 * Run: node_modules/.bin/bun scripts/bench/evidence-keys.ts [--signatures 20000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPgFacets } from "../../src/database.ts";
import type { EvidenceKeys } from "../../src/evidence/key-file.ts";
import { fileEvidenceKeySet } from "../../src/evidence/key-set.ts";
import { noteEvidence } from "../../src/evidence/notes.ts";
import { createEvidenceSeal } from "../../src/evidence/seal.ts";
import { textSha256 } from "../../src/evidence/statement.ts";
import { startPostgres } from "../../test/support/postgres.ts";

const argv = process.argv.slice(2);
const at = argv.indexOf("--signatures");
const signatures = at >= 0 ? Number(argv[at + 1]) : 20_000;

const folder = mkdtempSync(join(tmpdir(), "tb-bench-evkeys-"));
const server = await startPostgres();
const pg = await openPgFacets(await server.createDatabase("bench"), { max: 2 });
const engines: { name: string; keys: EvidenceKeys; times: number[] }[] = [
  { name: "key file (reference)", keys: await fileEvidenceKeySet(folder).open(), times: [] },
  { name: "PostgreSQL", keys: await pg.evidenceKeys!.open(), times: [] },
];

const text = "Hello, evidence.";
const result = noteEvidence(
  { ok: true, url: "https://example.com/", text },
  { url: "https://example.com/", final_url: "https://example.com/", source_status: 200, fetched_at: new Date().toISOString(), content_type: "text/html", source_sha256: "0".repeat(64), text_sha256: textSha256(text), format: "text", version: "web-read/1" },
);
const call = { server: "http://127.0.0.1:8402" };

const rounds = 10;
for (let round = 0; round < rounds; round++) {
  for (const engine of round % 2 ? [...engines].reverse() : engines) {
    const seal = createEvidenceSeal(engine.keys);
    for (let i = 0; i < signatures / rounds; i++) {
      const start = performance.now();
      await seal.seal(result, call);
      engine.times.push(performance.now() - start);
    }
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const p50s: number[] = [];
for (const { name, times } of engines) {
  const sorted = [...times].sort((a, b) => a - b);
  p50s.push(quantile(sorted, 0.5));
  console.log(`${name.padEnd(22)} ${times.length} signatures  p50 ${quantile(sorted, 0.5).toFixed(4)} ms  p99 ${quantile(sorted, 0.99).toFixed(4)} ms  mean ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(4)} ms`);
}
console.log(`PostgreSQL / key file at p50: ${(p50s[1]! / p50s[0]!).toFixed(2)}`);

await pg.close();
await server.stop();
rmSync(folder, { recursive: true, force: true });
