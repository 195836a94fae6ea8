import { describe, expect, it } from "bun:test";
import { Database } from "../../src/store/sqlite.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations } from "../../src/store/db.ts";
import { allMigrations, databaseFileName, openStore } from "../../src/database.ts";

describe("store", () => {
  it("opens in WAL mode and applies every migration once", () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-store-"));
    const store = openStore(dir);
    expect(store.db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    const ids = store.db.query<{ id: string }, []>("SELECT id FROM schema_migrations ORDER BY id").all().map((r) => r.id);
    expect(ids).toEqual(allMigrations.map((m) => m.id).sort());
    store.close();
    // reopening applies nothing new
    const again = openStore(dir);
    expect(applyMigrations(again.db, allMigrations)).toEqual([]);
    again.close();
  });

  it("migrates a database made by an older version, keeping its data", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-store-old-"));
    const old = new Database(join(dir, databaseFileName), { create: true });
    const first = allMigrations.filter((m) => m.id === "0100_settings");
    applyMigrations(old, first);
    old.run("INSERT INTO settings (key, value, updated_at) VALUES ('manager', ?, '2026-01-01T00:00:00Z')", [
      JSON.stringify({ openForWork: false, pauseReason: "maintenance" }),
    ]);
    old.close();

    const store = openStore(dir);
    expect(await store.settings.manager()).toMatchObject({ openForWork: false, pauseReason: "maintenance" });
    await store.pluginStore("x.y").set("k", { a: 1 });
    expect(await store.pluginStore("x.y").get("k")).toEqual({ a: 1 });
    store.close();
  });

  it("refuses a migration list with a repeated id", () => {
    const db = new Database(":memory:");
    expect(() => applyMigrations(db, [{ id: "1", sql: "SELECT 1" }, { id: "1", sql: "SELECT 2" }])).toThrow(/duplicate/);
  });

  it("rolls back a failing migration and records nothing for it", () => {
    const db = new Database(":memory:");
    expect(() => applyMigrations(db, [{ id: "0001", sql: "CREATE TABLE a (x); CREATE TABLE a (y);" }])).toThrow();
    expect(db.query("SELECT id FROM schema_migrations").all()).toEqual([]);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'a'").all()).toEqual([]);
  });

  it("keeps plugin stores apart", async () => {
    const store = openStore(":memory:");
    await store.pluginStore("a.one").set("k", "1");
    expect(await store.pluginStore("b.two").get("k")).toBeUndefined();
    expect(await store.pluginStore("a.one").keys()).toEqual(["k"]);
    expect(await store.pluginStore("a.one").delete("k")).toBe(true);
  });

  it("persists pause and resume of the manager", async () => {
    const store = openStore(":memory:");
    expect((await store.settings.manager()).openForWork).toBe(true);
    await store.settings.pause("upgrading");
    expect(await store.settings.manager()).toMatchObject({ openForWork: false, pauseReason: "upgrading" });
    await store.settings.resume();
    expect(await store.settings.manager()).toMatchObject({ openForWork: true, pauseReason: "" });
  });

  it("serves the free documents' pause state from a read at most a second old, and a pause from this process at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-settings-"));
    const store = openStore(dir);
    const other = openStore(dir); // stands for `tollbooth pause` in another process
    expect(store.settings.recentManager().openForWork).toBe(true);
    await other.settings.pause("elsewhere");
    expect(store.settings.recentManager().openForWork).toBe(true);
    expect(await store.settings.manager()).toMatchObject({ openForWork: false, pauseReason: "elsewhere" });
    await store.settings.resume();
    expect(store.settings.recentManager().openForWork).toBe(true);
    await store.settings.pause("here");
    expect(store.settings.recentManager()).toMatchObject({ openForWork: false, pauseReason: "here" });
    other.close();
    store.close();
  });
});

describe("request outcomes", () => {
  it("keeps every queued row: read back at once, and written on close", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-outcomes-"));
    const store = openStore(dir);
    const row = (n: number) => ({ requestId: `req_${n}`, operationId: "x.y", method: "POST", route: "/v1/x", status: 200, outcome: "ok", durationMs: n, at: new Date(2026, 0, 1, 0, 0, n).toISOString() });
    for (let n = 0; n < 300; n++) store.requestOutcomes.record(row(n));
    expect(await store.requestOutcomes.recent(1000)).toHaveLength(300);
    store.requestOutcomes.record(row(400));
    store.close();
    const again = openStore(dir);
    expect((await again.requestOutcomes.recent(1))[0]?.requestId).toBe("req_400");
    again.close();
  });
});
