/**
 * `tollbooth migrate-store` on a real PostgreSQL (issue 28): a data folder with rows in the quotes,
 * capital board, directory, A2A task and idempotency-key tables moves in one transaction and reads
 * back through the PostgreSQL engines exactly as through the SQLite ones; a second run into the
 * filled target is refused (and --append collides, rolling back); a table with rows and no
 * PostgreSQL counterpart refuses the whole copy with nothing written.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPgA2aTaskRows } from "../../src/a2a/task-pg.ts";
import { createPgTicketBoard } from "../../src/capital/ticket-pg.ts";
import { migrateStoreForCli } from "../../src/cli/migrate-store.ts";
import { allPgMigrations, openPgStore, openStore, type Store } from "../../src/database.ts";
import { createPgListingStore } from "../../src/directory/listing-pg.ts";
import { createIdempotencyStore } from "../../src/jobs/idempotency.ts";
import { createPgIdempotencyKeys } from "../../src/jobs/idempotency-pg.ts";
import { sqliteIdempotencyKeys } from "../../src/jobs/idempotency-keys.ts";
import { decideQuote } from "../../src/quotes/decide.ts";
import { createPgQuoteStore } from "../../src/quotes/quote-pg.ts";
import { goalHashOf, normaliseGoal } from "../../src/quotes/quote-store.ts";
import { openPostgres, type Sql } from "../../src/store/postgres.ts";
import { filePostgres } from "../support/store-engines.ts";

const postgres = filePostgres("migrate", "tollbooth migrate-store on PostgreSQL");

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const TTL = 24 * 3_600_000;

/** A data folder with rows in each ported table; returns what a reader should see. */
async function seed(store: Store) {
  const goal = normaliseGoal("Extract the opening hours table from https://example.com/contact as JSON");
  const decision = decideQuote(goal, 1_000_000, { priceOf: () => undefined, modelConfigured: true });
  const quotes = [];
  for (let n = 0; n < 3; n++) quotes.push(await store.quotes.insert(decision, { goal, goalHash: goalHashOf(goal), budgetMicros: 1_000_000, payer: n ? `0xpayer${n}` : null }, at(n)));
  await store.quotes.claim(quotes[1]!.id, "job.run.t1", "0xpayer1", "job_1", "req_1", at(5));
  const ticket = await store.tickets.add({ title: "crawler", summary: "s", terms: "t", seats: 5, seatPriceMicros: 250_000, expiresAt: new Date(at(0).getTime() + 3_600_000) }, at(0));
  const other = await store.tickets.add({ title: "cancelled", summary: "s", terms: "t", seats: 2, seatPriceMicros: 1_000_000, expiresAt: new Date(at(0).getTime() + 3_600_000) }, at(1));
  const c1 = await store.tickets.reserve({ ticketId: ticket.id, seats: 2, contact: "ops@example.com", requestId: "r1" }, at(2));
  const c2 = await store.tickets.reserve({ ticketId: other.id, seats: 1, contact: null, requestId: "r2" }, at(2));
  if (typeof c1 === "string" || typeof c2 === "string") throw new Error("not reserved");
  await store.tickets.confirm(c1.id, { payer: "0xbuyer", network: "eip155:8453", transaction: "0xtx1", paymentId: "pay_1" }, at(3));
  await store.tickets.confirm(c2.id, { payer: "0xbuyer", network: "eip155:8453", transaction: "0xtx2", paymentId: "pay_2" }, at(3));
  await store.tickets.cancel(other.id, at(4));
  const listing = await store.listings.add({ name: "alpha", description: "d", tags: ["crawl"], skills: ["crawl.site"], endpoint: "https://alpha.example/a2a", cardUrl: null, priceSummary: { "crawl.site": "0.2" }, networks: ["eip155:8453"], contact: "ops@alpha.example" }, at(0));
  await store.listings.recordCheck(listing.id, { at: at(9), reachable: true, latencyMs: 12, openForWork: true });
  await store.listings.add({ name: "beta", description: "d", tags: [], skills: [], endpoint: null, cardUrl: null, priceSummary: {}, networks: [], contact: null }, at(1));
  await store.a2aTasks.save("task_1", JSON.stringify({ id: "task_1", status: { state: 3 } }), true, at(0));
  await store.a2aTasks.save("task_2", JSON.stringify({ id: "task_2", status: { state: 2 } }), false, at(1));
  const keys = sqliteIdempotencyKeys(createIdempotencyStore(store.db, TTL));
  await keys.claim("caller", "k1", "body", at(0), "digest-1");
  await keys.remember("caller", "k1", { status: 202, headers: { location: "/v1/jobs/j1" }, body: '{"job_id":"j1"}' }, "j1");
  return { tickets: [ticket.id, other.id], commitments: [c1.id, c2.id], listing: listing.id };
}

async function readAll(store: Pick<Store, "quotes" | "listings" | "a2aTasks"> & { tickets: Pick<Store["tickets"], "list" | "listCommitments" | "totals"> }) {
  return {
    quotes: await store.quotes.recent(10),
    tickets: await store.tickets.list(at(30)),
    commitments: await store.tickets.listCommitments(),
    totals: await store.tickets.totals(at(30)),
    listings: await store.listings.listAll({ includeRemoved: true }),
    due: (await store.listings.dueForCheck(5)).map((l) => l.id),
    tasks: [await store.a2aTasks.load("task_1"), await store.a2aTasks.load("task_2")],
  };
}

function capture() {
  const lines: string[] = [];
  const errors: string[] = [];
  const error = console.error;
  return {
    lines,
    errors,
    async run(args: Parameters<typeof migrateStoreForCli>[0]) {
      console.error = (line: string) => void errors.push(line);
      try {
        return await migrateStoreForCli(args, (line) => lines.push(line));
      } finally {
        console.error = error;
      }
    },
  };
}

async function withPg<T>(url: string, use: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = await openPostgres({ url, migrations: allPgMigrations, max: 2 });
  try {
    return await use(sql);
  } finally {
    await sql.end();
  }
}

describe.skipIf(postgres.skip)("tollbooth migrate-store", () => {
  it("copies every ported table in one go and the PostgreSQL engines read back what the SQLite ones read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-migrate-"));
    const store = openStore(dir);
    const ids = await seed(store);
    const before = await readAll(store);
    store.close();
    const url = await postgres.freshDatabase();

    const cli = capture();
    const code = await cli.run({ from: `sqlite:${dir}`, to: url, append: false });
    expect(cli.errors).toEqual([]);
    expect(code).toBe(0);
    expect(cli.lines).toContain("copied quotes: 3 rows");
    expect(cli.lines).toContain("copied capital_tickets: 2 rows");
    expect(cli.lines).toContain("copied capital_commitments: 2 rows");
    expect(cli.lines).toContain("copied directory_listings: 2 rows");
    expect(cli.lines).toContain("copied a2a_tasks: 2 rows");
    expect(cli.lines).toContain("copied idempotency_keys: 1 rows");
    expect(cli.lines.indexOf("copied capital_tickets: 2 rows")).toBeLessThan(cli.lines.indexOf("copied capital_commitments: 2 rows"));
    expect(cli.lines.at(-1)).toMatch(/^verified: .*quotes 3/);

    await withPg(url, async (sql) => {
      const pg = { quotes: createPgQuoteStore(sql), tickets: createPgTicketBoard(sql), listings: createPgListingStore(sql), a2aTasks: createPgA2aTaskRows(sql) };
      expect(await readAll(pg)).toEqual(before);
      expect(await pg.tickets.getCommitment(ids.commitments[1]!)).toMatchObject({ refundState: "due", state: "confirmed" });
      const keys = createPgIdempotencyKeys(sql, TTL);
      expect(await keys.claim("caller", "k1", "body", at(10))).toEqual({ kind: "replay", response: { status: 202, headers: { location: "/v1/jobs/j1" }, body: '{"job_id":"j1"}' } });
      expect(await keys.findIdentical("k1", "body", "digest-1", at(10))).toMatchObject({ kind: "replay" });
      // New rows after the copy: generated order columns continue past the copied ones.
      const added = await pg.listings.add({ name: "gamma", description: "d", tags: [], skills: [], endpoint: null, cardUrl: null, priceSummary: {}, networks: [], contact: null }, at(1));
      expect((await pg.listings.listAll())[0]?.id).toBe(added.id);
    });

    // Into a filled target: refused, nothing written; with --append the same rows collide and roll back.
    const again = capture();
    expect(await again.run({ from: `sqlite:${dir}`, to: url, append: false })).toBe(1);
    expect(again.errors.join("\n")).toMatch(/already holds rows in .*quotes \(3 rows\).*--append/);
    const appended = capture();
    expect(await appended.run({ from: `sqlite:${dir}`, to: url, append: true })).toBe(1);
    expect(appended.errors.join("\n")).toMatch(/rolled back/);
    await withPg(url, async (sql) => {
      const [row] = await sql<{ n: number }[]>`SELECT count(*) AS n FROM quotes`;
      expect(row?.n).toBe(3);
    });
  }, 120_000);

  it("moves a served folder's core and job tables too, and the whole store on PostgreSQL serves them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-migrate-"));
    const store = openStore(dir);
    const fileKeys = await (await store.evidenceKeys.open()).jwks();
    await store.settings.pause("moving to PostgreSQL");
    await store.pluginStore("acme.notes").set("greeting", { text: "hi", n: 2 });
    const reserved = await store.receipts.reserve({ id: "pay_m1", network: "eip155:8453", asset: "0xusdc", payTo: "0xpayto", payer: "0xpayer", amount: "4000", nonce: "0xnonce1", validBefore: null, requestId: "req_m1", operationId: "web.read", now: at(0) });
    if (!reserved.ok) throw new Error("not reserved");
    await store.receipts.claimForSettlement("pay_m1", { requestId: "req_m1", operationId: "web.read", settleRequest: null, now: at(1) });
    await store.receipts.markSettled("pay_m1", "0xsettled", at(2));
    await store.jobs.insert({ id: "job_m1", skill: "web.brief", sync: false, input: { url: "https://example.com" }, caller: "10.0.0.1", payer: "0xpayer", network: "eip155:8453", priceMicros: 20_000, payment: null, settleMode: "completion", requestId: "req_j1", createdAt: at(3) });
    await store.jobs.complete("job_m1", { brief: "done" }, at(4), new Date(at(4).getTime() + TTL));
    const before = { receipt: await store.receipts.get("pay_m1"), job: await store.jobs.get("job_m1"), manager: await store.settings.manager(), kv: await store.pluginStore("acme.notes").get("greeting") };
    store.close();
    const url = await postgres.freshDatabase();
    const cli = capture();
    expect(await cli.run({ from: `sqlite:${dir}`, to: url, append: false })).toBe(0);
    expect(cli.errors).toEqual([]);
    expect(cli.lines).toContain("copied payment_receipts: 1 rows");
    expect(cli.lines).toContain("copied settings: 1 rows");
    expect(cli.lines).toContain("copied plugin_kv: 1 rows");
    expect(cli.lines).toContain("copied jobs: 1 rows");
    expect(cli.lines.at(-1)).toMatch(/^imported 1 evidence signing key\(s\) from /);
    const pg = await openPgStore(url);
    try {
      // Results signed on the single box still verify: the database publishes the same key.
      expect(await (await pg.evidenceKeys.open()).jwks()).toEqual(fileKeys);
      expect(await pg.receipts.get("pay_m1")).toEqual(before.receipt!);
      expect(await pg.jobs.get("job_m1")).toEqual(before.job!);
      expect(await pg.settings.manager()).toEqual(before.manager);
      expect(await pg.pluginStore("acme.notes").get("greeting")).toEqual(before.kv!);
      // The copied payment keeps its replay lock on PostgreSQL: the same authorization is refused.
      const replay = await pg.receipts.reserve({ id: "pay_m2", network: "eip155:8453", asset: "0xusdc", payTo: "0xpayto", payer: "0xpayer", amount: "4000", nonce: "0xnonce1", validBefore: null, requestId: "req_m2", operationId: "web.read", now: at(5) });
      expect(replay.ok).toBe(false);
    } finally {
      await pg.close();
    }
  }, 120_000);

  it("refuses, writing nothing, when a table with rows has no PostgreSQL counterpart yet", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-migrate-"));
    const store = openStore(dir);
    await seed(store);
    store.db.exec("CREATE TABLE later_family (id TEXT PRIMARY KEY, note TEXT)");
    store.db.exec("INSERT INTO later_family VALUES ('a', 'x'), ('b', 'y')");
    store.db.exec("CREATE TABLE later_empty (id TEXT PRIMARY KEY)");
    store.close();
    const url = await postgres.freshDatabase();
    const cli = capture();
    expect(await cli.run({ from: `sqlite:${dir}`, to: url, append: false })).toBe(1);
    expect(cli.errors.join("\n")).toContain("table later_family (2 rows) has no PostgreSQL counterpart yet");
    expect(cli.errors.join("\n")).not.toContain("later_empty");
    await withPg(url, async (sql) => {
      const [row] = await sql<{ n: number }[]>`SELECT count(*) AS n FROM quotes`;
      expect(row?.n).toBe(0);
    });
  }, 120_000);

  it("checks its arguments before touching anything", async () => {
    const cli = capture();
    expect(await cli.run({ from: "/tmp/x", to: "postgres://h/db", append: false })).toBe(2);
    expect(await cli.run({ from: "sqlite:/tmp/x", to: "mysql://h/db", append: false })).toBe(2);
    expect(await cli.run({ from: `sqlite:${mkdtempSync(join(tmpdir(), "tb-migrate-"))}`, to: "postgres://h/db", append: false })).toBe(2);
    expect(cli.errors.join("\n")).toMatch(/--from must be sqlite:DIR[\s\S]*--to must be a postgres[\s\S]*no tollbooth.db in/);
  });
});
