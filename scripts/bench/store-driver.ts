/**
 * SQLite driver figures (issue 28): the store work of one paid call (a receipt reserved, claimed,
 * settled and looked up; an idempotency key claimed and remembered) through our seam
 * (src/store/sqlite.ts, node:sqlite) beside the same calls on `bun:sqlite`, in the same run, on a
 * WAL file in a temp folder each (`--memory`: in memory, the drivers' CPU cost without the disk).
 * Rounds alternate between the drivers so machine noise hits both.
 * Run: node_modules/.bin/bun scripts/bench/store-driver.ts [--calls 4000] [--rounds 5] [--memory]
 */
import { Database as BunDatabase } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allMigrations } from "../../src/database.ts";
import { createIdempotencyStore } from "../../src/jobs/idempotency.ts";
import { applyMigrations, type Database, openDatabase } from "../../src/store/db.ts";
import { createReceiptStore } from "../../src/store/receipts.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};
const calls = option("--calls", 4000);
const rounds = option("--rounds", 5);
const inMemory = argv.includes("--memory");

const folder = mkdtempSync(join(tmpdir(), "tb-bench-store-"));

function openBun(path: string): Database {
  const db = new BunDatabase(path, { create: true, strict: true });
  for (const pragma of ["journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON", "busy_timeout = 5000"]) db.exec(`PRAGMA ${pragma}`);
  // bun:sqlite has the surface the seam reproduces; the cast lets the same store code run on it.
  applyMigrations(db as unknown as Database, allMigrations);
  return db as unknown as Database;
}

const drivers: { name: string; db: Database }[] = [
  { name: "bun:sqlite (reference)", db: openBun(inMemory ? ":memory:" : join(folder, "bun.db")) },
  { name: "store seam (node:sqlite)", db: openDatabase({ path: inMemory ? ":memory:" : join(folder, "seam.db"), migrations: allMigrations }) },
];

let serial = 0;
async function paidCalls(db: Database, count: number): Promise<number> {
  const receipts = createReceiptStore(db);
  const keys = createIdempotencyStore(db, 86_400_000);
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const n = ++serial;
    const now = new Date();
    const claim = keys.claim("web.read", `key-${n}`, "body-hash", now);
    if (claim.kind !== "claimed") throw new Error(`idempotency claim ${n}: ${claim.kind}`);
    const id = `r-${n}`;
    const nonce = `0x${n.toString(16).padStart(64, "0")}`;
    const reserved = await receipts.reserve({ id, network: "eip155:8453", asset: "0xUSDC", payTo: "0xpay", payer: "0xpayer", amount: "1000", nonce, validBefore: 1_900_000_000, requestId: `q-${n}`, operationId: "web.read", now });
    if (!reserved.ok) throw new Error(`reserve ${n} refused`);
    if (!(await receipts.claimForSettlement(id, { requestId: `q-${n}`, operationId: "web.read", settleRequest: null, now }))) throw new Error(`claim ${n} refused`);
    if (!(await receipts.markSettled(id, `0xtx${n}`, now))) throw new Error(`settle ${n} refused`);
    if ((await receipts.find(`0xtx${n}`))?.state !== "settled") throw new Error(`receipt ${n} not found`);
    keys.remember("web.read", `key-${n}`, { status: 200, headers: { "content-type": "application/json" }, body: "{}" }, null);
  }
  return (performance.now() - started) / count;
}

const perCall = new Map<string, number[]>(drivers.map((d) => [d.name, []]));
for (const d of drivers) await paidCalls(d.db, 500); // warm up
for (let round = 0; round < rounds; round++) {
  for (const d of round % 2 === 0 ? drivers : [...drivers].reverse()) perCall.get(d.name)!.push(await paidCalls(d.db, calls));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const reference = median(perCall.get(drivers[0]!.name)!);
console.log(`store work of one paid call (5 receipt statements, 3 idempotency statements), ${inMemory ? "in memory" : "WAL file"}, ${calls} calls x ${rounds} rounds, median round:`);
for (const d of drivers) {
  const us = median(perCall.get(d.name)!) * 1000;
  console.log(`  ${d.name.padEnd(26)} ${us.toFixed(1).padStart(7)} us/call   ${(us / (reference * 1000)).toFixed(2)}x reference`);
}
for (const d of drivers) d.db.close();
rmSync(folder, { recursive: true, force: true });
