/**
 * The store's two engines as the service opens them (src/database.ts): PostgreSQL migrations share
 * the SQLite ids, the store on PostgreSQL refuses while any table family has no engine there and
 * names those families (so does `serve --database-url`), and the facets that are there open and
 * migrate on a real PostgreSQL.
 */
import { describe, expect, it } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import { join } from "node:path";
import { allMigrations, allPgMigrations, families, familiesNotOnPostgres, openPgFacets, openPgStore, PostgresNotReadyError } from "../../src/database.ts";
import { filePostgres } from "../support/store-engines.ts";

const postgres = filePostgres("database", "the PostgreSQL side of the database tests");


describe("the engines of each table family", () => {
  it("gives every PostgreSQL migration the id of its SQLite twin (the per-caller rate limit, in memory on SQLite, and the evidence keys, a file beside SQLite, are PostgreSQL's own)", () => {
    const sqliteIds = new Set(allMigrations.map((m) => m.id));
    expect(allPgMigrations.map((m) => m.id).filter((id) => !sqliteIds.has(id)).sort()).toEqual(["0130_rate_limit_windows", "evidence_0001_keys"]);
    expect(new Set(allPgMigrations.map((m) => m.id)).size).toBe(allPgMigrations.length);
  });

  it("has every table family on PostgreSQL, and names any family registered without an engine", () => {
    expect(familiesNotOnPostgres()).toEqual([]);
    expect(familiesNotOnPostgres([...families, { name: "toy family" }])).toEqual(["toy family"]);
    expect(new PostgresNotReadyError(["toy family"]).message).toContain("toy family");
  });

  it("makes serve --database-url fail with a clear message when the database cannot be reached", async () => {
    const { startService } = await import("../../src/boot.ts");
    const config = loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--database-url", "postgres://tb@127.0.0.1:1/x"], env: {} });
    const error = (await startService(config).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/ECONNREFUSED|connect|127\.0\.0\.1:1/i);
  });
});

describe.skipIf(postgres.skip)("a store on a real PostgreSQL", () => {
  it("opens the whole store on PostgreSQL, and opens and migrates every family's facets", async () => {
    const url = await postgres.freshDatabase();
    const whole = await openPgStore(url);
    try {
      expect(whole.engine).toBe("postgres");
      for (const facet of ["jobs", "tickets", "listings", "quotes", "a2aTasks", "receipts", "settings"] as const) expect(whole[facet]).toBeDefined();
      expect(() => whole.db).toThrow("PostgreSQL");
    } finally {
      await whole.close();
    }
    const facets = await openPgFacets(url, { max: 2 });
    try {
      const applied = await facets.sql<{ id: string }[]>`SELECT id FROM schema_migrations ORDER BY id`;
      expect(applied.map((r) => r.id)).toEqual(allPgMigrations.map((m) => m.id).sort());
      expect((facets.sql as unknown as { options: { prepare: boolean } }).options.prepare).toBe(true);
      for (const facet of ["settings", "pluginStore", "requestOutcomes", "receipts", "instances", "figures", "rateLimiter", "idempotencyKeys", "evidenceKeys"] as const) expect(facets[facet]).toBeDefined();
    } finally {
      await facets.close();
    }
  }, 60_000);

  it("turns prepared statements off for PgBouncer with ?prepare=false on the URL, and still works", async () => {
    const url = `${await postgres.freshDatabase()}?prepare=false`;
    const facets = await openPgFacets(url, { max: 1 });
    try {
      expect((facets.sql as unknown as { options: { prepare: boolean } }).options.prepare).toBe(false);
      await facets.pluginStore!("p.q").set("k", [1]);
      expect(await facets.pluginStore!("p.q").get("k")).toEqual([1]);
    } finally {
      await facets.close();
    }
  }, 60_000);

  it("lets tollbooth pause, resume and receipts work on the shared database when --database-url is given", async () => {
    const url = await postgres.freshDatabase();
    const root = join(import.meta.dir, "../..");
    const run = (...args: string[]) => {
      const done = Bun.spawnSync([process.execPath, "src/main.ts", ...args, "--data", join(root, "no-such-folder-used"), "--database-url", url], { cwd: root });
      return { code: done.exitCode, out: done.stdout.toString(), err: done.stderr.toString() };
    };
    const facets = await openPgFacets(url, { max: 1 });
    try {
      expect(run("pause", "--reason", "moving racks")).toMatchObject({ code: 0 });
      expect(await facets.settings!.manager()).toMatchObject({ openForWork: false, pauseReason: "moving racks" });
      expect(run("resume")).toMatchObject({ code: 0 });
      expect((await facets.settings!.manager()).openForWork).toBe(true);
      expect(run("receipts").out).toContain("no receipts in postgres://tollbooth@127.0.0.1:");
    } finally {
      await facets.close();
    }
  }, 60_000);
});
