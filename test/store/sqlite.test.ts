import { describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "../../src/store/sqlite.ts";

function table(): Database {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, flag INTEGER)");
  return db;
}

describe("the node:sqlite seam keeps bun:sqlite's semantics the stores rely on", () => {
  it("answers null, not undefined, when no row matches", () => {
    const db = table();
    expect(db.query("SELECT * FROM t WHERE id = ?").get(1)).toBeNull();
  });

  it("binds booleans as 1 and 0, positional and named", () => {
    const db = table();
    db.prepare("INSERT INTO t (name, flag) VALUES (?, ?)").run("a", true);
    db.prepare("INSERT INTO t (name, flag) VALUES ($name, $flag)").run({ name: "b", flag: false });
    expect(db.query<{ name: string; flag: number }>("SELECT name, flag FROM t ORDER BY name").all().map((r) => ({ ...r }))).toEqual([
      { name: "a", flag: 1 },
      { name: "b", flag: 0 },
    ]);
  });

  it("binds named parameters without their prefix and ignores extra ones", () => {
    const db = table();
    expect(db.prepare("INSERT INTO t (name) VALUES ($name)").run({ name: "x", unused: 1 }).changes).toBe(1);
  });

  it("returns rows as arrays from values()", () => {
    const db = table();
    db.run("INSERT INTO t (name, flag) VALUES (?, ?)", ["a", 7]);
    expect(db.query("SELECT name, flag FROM t").values()).toEqual([["a", 7]]);
  });

  it("caches query() statements per SQL text", () => {
    const db = table();
    expect(db.query("SELECT 1")).toBe(db.query("SELECT 1"));
    expect(db.prepare("SELECT 1")).not.toBe(db.prepare("SELECT 1"));
  });

  it("commits a transaction, and rolls all of it back when the function throws", () => {
    const db = table();
    const insert = db.prepare("INSERT INTO t (name) VALUES (?)");
    const both = db.transaction((a: string, b: string) => {
      insert.run(a);
      insert.run(b);
      return "done";
    });
    expect(both("a", "b")).toBe("done");
    expect(() => both("c", "a")).toThrow(/UNIQUE/);
    expect(db.query<{ n: number }>("SELECT count(*) AS n FROM t").get()!.n).toBe(2);
    expect(db.inTransaction).toBe(false);
  });

  it("turns a nested transaction into a savepoint: its failure undoes only its own writes", () => {
    const db = table();
    const insert = db.prepare("INSERT INTO t (name) VALUES (?)");
    const inner = db.transaction((name: string) => insert.run(name));
    const outer = db.transaction(() => {
      insert.run("kept");
      expect(() => inner("kept")).toThrow(/UNIQUE/);
      inner("also kept");
    });
    outer();
    expect(db.query<{ name: string }>("SELECT name FROM t ORDER BY id").all().map((r) => r.name)).toEqual(["kept", "also kept"]);
  });

  it("takes the write lock at BEGIN with .immediate: a second connection's immediate transaction fails busy meanwhile", () => {
    const path = join(mkdtempSync(join(tmpdir(), "tb-sqlite-")), "x.db");
    const one = new Database(path);
    one.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY)");
    const two = new Database(path);
    two.exec("PRAGMA busy_timeout = 0");
    const inTwo = two.transaction(() => two.run("INSERT INTO t DEFAULT VALUES"));
    one.transaction(() => {
      expect(() => inTwo.immediate()).toThrow(/locked|busy/i);
    }).immediate();
    inTwo.immediate();
    expect(one.query<{ n: number }>("SELECT count(*) AS n FROM t").get()!.n).toBe(1);
    one.close();
    two.close();
  });

  it("refuses to create a missing file when create is false", () => {
    const path = join(mkdtempSync(join(tmpdir(), "tb-sqlite-")), "missing.db");
    expect(() => new Database(path, { create: false })).toThrow(/unable to open/);
  });
});
