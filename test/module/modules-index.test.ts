/**
 * The generated module lists are current (run `npm run gen` when this fails), and the module list
 * refuses what would merge silently: two modules claiming one id, migration, document, route,
 * command or error code, and tables whose two engines list different migrations.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listModuleIds, renderErrorsIndex, renderModuleIndex, renderTablesIndex } from "../../scripts/gen-index.ts";
import { composeModules, ModuleClashError } from "../../src/module/compose.ts";
import { defineModule, type TollboothModule } from "../../src/module/define.ts";
import { modules } from "../../src/modules.generated.ts";
import { errorCodes } from "../../src/errors.ts";

const root = join(import.meta.dir, "../..");
const onDisk = (path: string) => readFileSync(join(root, path), "utf8");

describe("the generated module lists", () => {
  it("name every src/<id>/module.ts, their tables and their error codes (run `npm run gen` when this fails)", async () => {
    expect(onDisk("src/modules.generated.ts")).toBe(renderModuleIndex());
    expect(onDisk("src/module-tables.generated.ts")).toBe(renderTablesIndex());
    expect(onDisk("src/module-errors.generated.ts")).toBe(await renderErrorsIndex());
    expect(modules.map((m): string => m.id)).toEqual(listModuleIds());
  });

  it("hold modules whose id is their folder's name, each error code in the one table", () => {
    for (const m of modules) {
      expect(listModuleIds()).toContain(m.id);
      for (const [code, spec] of Object.entries(m.errors ?? {})) expect(errorCodes[code as keyof typeof errorCodes] as unknown).toEqual(spec);
    }
  });
});

describe("composeModules", () => {
  const step = (id: string) => ({ id, sql: "SELECT 1" });
  const tables = (sqlite: string[], postgres = sqlite) => ({
    family: "t",
    sqlite: sqlite.map(step),
    postgres: postgres.map(step),
    openSqlite: () => ({}),
    openPostgres: () => ({}),
  });
  const clash = (list: readonly TollboothModule[], taken = {}) => {
    try {
      composeModules(list, taken);
    } catch (error) {
      expect(error).toBeInstanceOf(ModuleClashError);
      return (error as Error).message;
    }
    throw new Error("expected a ModuleClashError");
  };
  const doc = (path: string) => ({ path, contentType: "application/json" as const, summary: "s", render: () => ({}) });
  const command = (name: string) => ({ spec: { name, maxWords: 0, summary: "s", flags: {} }, usage: "", run: async () => 0 });

  it("passes a list without clashes through unchanged", () => {
    const list = [defineModule({ id: "a", tables: tables(["a_0001"]) }), defineModule({ id: "b", freeDocuments: [doc("/v1/b")] })] as const;
    expect(composeModules(list)).toBe(list);
  });

  it("names both sides of every clash", () => {
    expect(clash([defineModule({ id: "a" }), defineModule({ id: "a" })])).toBe('module id "a" is declared by module a and by module a');
    expect(clash([defineModule({ id: "a", tables: tables(["x_0001"]) }), defineModule({ id: "b", tables: tables(["x_0001"]) })])).toBe('migration "x_0001" is declared by module a and by module b');
    expect(clash([defineModule({ id: "a", freeDocuments: [doc("/v1/x")] }), defineModule({ id: "b", freeDocuments: [doc("/v1/x")] })])).toContain("module a and by module b");
    expect(clash([defineModule({ id: "a", commands: [command("x")] })], { commands: ["x"] })).toBe('command "x" is declared by the core and by module a');
    expect(clash([defineModule({ id: "a", errors: { X: { status: 400, message: "m" } } }), defineModule({ id: "b", errors: { X: { status: 400, message: "m" } } })])).toContain('error code "X"');
    const route = { method: "GET" as const, path: "/v1/r", handle: () => new Response() };
    expect(clash([defineModule({ id: "a", routes: [route] }), defineModule({ id: "b", routes: [route] })])).toBe('route "GET /v1/r" is declared by module a and by module b');
  });

  it("refuses tables whose engines list different migrations", () => {
    expect(clash([defineModule({ id: "a", tables: tables(["a_0001", "a_0002"], ["a_0001"]) })])).toContain("must list the same ids");
  });

  it("refuses SQLite migrations from a family kept outside the SQLite database, and takes its PostgreSQL ids", () => {
    const inMemory = (sqlite: string[]) => defineModule({ id: "a", tables: { ...tables(sqlite, ["a_0001"]), outsideSqlite: "one instance counts in memory" } });
    expect(clash([inMemory(["a_0001"])])).toContain("kept outside the SQLite database");
    expect(composeModules([inMemory([])])).toHaveLength(1);
    expect(clash([inMemory([]), defineModule({ id: "b", tables: tables(["a_0001"]) })])).toBe('migration "a_0001" is declared by module a and by module b');
  });

  it("holds the real modules' migrations the same on both engines (or none on SQLite for a family kept outside its database)", () => {
    for (const m of modules) {
      if (!m.tables) continue;
      if (m.tables.outsideSqlite !== undefined) expect({ id: m.id, sqlite: m.tables.sqlite }).toEqual({ id: m.id, sqlite: [] });
      else expect(m.tables.postgres.map((s) => s.id)).toEqual(m.tables.sqlite.map((s) => s.id));
    }
  });
});
