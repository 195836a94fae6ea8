/**
 * "A new product needs 1 folder and 1 generated line" (issue 39). The test copies the source into a
 * throwaway tree, writes one module folder there (a table on both engines, a free document, a command,
 * a route, a sweep and an error code), regenerates the lists, and checks that the only line added to the
 * module list is the module's own, that the command runs and made its table, and that a booted app
 * serves the document and the route and lists the code. The repository's own src/ is never written
 * (other tests read it meanwhile); the throwaway tree is removed afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";

const repo = join(import.meta.dir, "../..");
const tree = mkdtempSync(join(tmpdir(), "tb-new-module-"));
const data = join(tree, "data");
afterAll(() => rmSync(tree, { recursive: true, force: true }));

const widgetModule = `import { ApiError } from "../errors.ts";
import { defineModule, defineErrors, type ModuleTables } from "../module/define.ts";

export const errors = defineErrors({ WIDGET_JAMMED: { status: 409, message: "The widget press is jammed; nothing was charged." } });

export const tables = {
  family: "widgets",
  sqlite: [{ id: "widget_0001_items", sql: "CREATE TABLE widget_items (name TEXT PRIMARY KEY)" }],
  postgres: [{ id: "widget_0001_items", sql: "CREATE TABLE widget_items (name TEXT PRIMARY KEY)" }],
  openSqlite: (db) => ({
    widgets: {
      add: async (name) => void db.prepare("INSERT OR IGNORE INTO widget_items (name) VALUES (?)").run(name),
      names: async () => db.query("SELECT name FROM widget_items ORDER BY name").all().map((r) => r.name),
    },
  }),
  openPostgres: (sql) => ({
    widgets: {
      add: async (name) => void (await sql\`INSERT INTO widget_items (name) VALUES (\${name}) ON CONFLICT DO NOTHING\`),
      names: async () => (await sql\`SELECT name FROM widget_items ORDER BY name\`).map((r) => r.name),
    },
  }),
} satisfies ModuleTables;

export default defineModule({
  id: "widget",
  tables,
  errors,
  serve: ({ store }) => ({ docs: { stock: async () => ({ ok: true, widgets: await store.widgets.names() }) } }),
  freeDocuments: [{ path: "/v1/widget", contentType: "application/json", summary: "Widgets in stock", render: (docs) => docs.widget.stock() }],
  sweep: { everyMs: 50, run: async (store) => store.widgets.add("swept") },
  routes: [{ method: "POST", path: "/v1/widget/press", handle: () => Response.json(new ApiError("WIDGET_JAMMED").toBody(), { status: 409 }) }],
  commands: [
    {
      spec: { name: "widget", words: "NAME", maxWords: 1, summary: "Make a widget.", flags: {} },
      usage: "  widget NAME            make a widget",
      run: async ({ words, withStore }) => withStore(async (store) => {
        await store.widgets.add(words[0]);
        console.log("made " + words[0]);
        return 0;
      }),
    },
  ],
});
`;

const probe = `import { buildService } from "./src/boot.ts";
import { loadConfig } from "./src/config.ts";
import { allPgMigrations } from "./src/database.ts";
import { createMemoryLogger } from "./src/log.ts";
const config = loadConfig({ argv: ["--data", process.argv[2], "--memory-soft-limit-mb", "0"] });
const service = await buildService(config, { log: createMemoryLogger() });
const get = (path, init) => service.handle(new Request(new URL(path, "http://127.0.0.1:8402"), init), "127.0.0.1");
// The document reads the table; the sweep, every 50 ms while the app serves, adds "swept" once.
let stock = await (await get("/v1/widget")).json();
for (let i = 0; i < 200 && !stock.widgets.includes("swept"); i++) {
  await Bun.sleep(50);
  stock = await (await get("/v1/widget")).json();
}
const press = await get("/v1/widget/press", { method: "POST" });
const openapi = await (await get("/openapi.json")).json();
console.log(JSON.stringify({
  stock,
  press: { status: press.status, body: await press.json() },
  documented: Object.keys(openapi.paths).includes("/v1/widget"),
  code: openapi["x-error-codes"].WIDGET_JAMMED,
  pg: allPgMigrations.some((m) => m.id === "widget_0001_items"),
}));
await service.close();
process.exit(0);
`;

function run(...args: string[]): { code: number; out: string; err: string } {
  const proc = Bun.spawnSync([process.execPath, ...args], { cwd: tree, env: { ...process.env, NO_COLOR: "1" } });
  return { code: proc.exitCode ?? -1, out: proc.stdout.toString(), err: proc.stderr.toString() };
}

let listBefore = "";

beforeAll(() => {
  for (const path of ["src", "plugins", "skills", "scripts", "package.json", "tsconfig.json", "bunfig.toml"]) cpSync(join(repo, path), join(tree, path), { recursive: true });
  symlinkSync(join(repo, "node_modules"), join(tree, "node_modules"));
  listBefore = readFileSync(join(tree, "src/modules.generated.ts"), "utf8");
  mkdirSync(join(tree, "src/widget"));
  writeFileSync(join(tree, "src/widget/module.ts"), widgetModule);
  writeFileSync(join(tree, "src/widget/errors.ts"), 'export { errors } from "./module.ts";\n');
  writeFileSync(join(tree, "src/widget/tables.ts"), 'export { tables } from "./module.ts";\n');
  writeFileSync(join(tree, "probe.ts"), probe);
  const gen = run("scripts/gen-index.ts");
  if (gen.code !== 0) throw new Error(`gen-index failed: ${gen.err}`);
}, 120_000);

describe("a new feature module", () => {
  it("is one folder: regenerating imports it in the module list, and every line that changes names it", () => {
    const after = readFileSync(join(tree, "src/modules.generated.ts"), "utf8").split("\n");
    const before = new Set(listBefore.split("\n"));
    const changed = after.filter((line) => !before.has(line));
    expect(changed.filter((line) => line.startsWith("import "))).toEqual(['import widget from "./widget/module.ts";']);
    for (const line of changed) expect(line).toContain("widget");
    expect(after.length - listBefore.split("\n").length).toBe(1);
  });

  it("brings its command, which opens the database with its table migrated", () => {
    const made = run("src/main.ts", "widget", "sprocket", "--data", data);
    expect(made.err).toBe("");
    expect(made).toMatchObject({ code: 0, out: "made sprocket\n" });
    expect(run("src/main.ts", "help").out).toContain("widget NAME            make a widget");
    const db = new Database(join(data, "tollbooth.db"), { readonly: true });
    try {
      expect(db.query("SELECT id FROM schema_migrations WHERE id = 'widget_0001_items'").all()).toHaveLength(1);
      expect(db.query("SELECT name FROM widget_items").all()).toEqual([{ name: "sprocket" }]);
    } finally {
      db.close();
    }
  }, 60_000);

  it("is served by a booted app: its document, its sweep, its route, its error code, its PostgreSQL migration", () => {
    const answer = run("probe.ts", data);
    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.out.trim().split("\n").pop()!)).toEqual({
      stock: { ok: true, widgets: ["sprocket", "swept"] },
      press: { status: 409, body: { ok: false, error: "WIDGET_JAMMED", status: 409, message: "The widget press is jammed; nothing was charged." } },
      documented: true,
      code: { status: 409, message: "The widget press is jammed; nothing was charged." },
      pg: true,
    });
  }, 60_000);
});
