import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { loadExternalFiles } from "../../src/loader/load.ts";
import { buildRegistry, RegistryError } from "../../src/plugin/registry.ts";
import { pluginFolder, pluginSource, skillSource } from "../support/plugin-files.ts";

async function problemsFor(files: Record<string, string>) {
  const loaded = await loadExternalFiles(pluginFolder(files));
  try {
    buildRegistry(loaded);
  } catch (error) {
    if (error instanceof RegistryError) return error.problems.map((p) => ({ file: p.file.split("/").pop(), field: p.field, message: p.message }));
    throw error;
  }
  return [];
}

describe("plugin registry", () => {
  it("loads operator files that import from \"tollbooth\" without node_modules, in sorted order", async () => {
    const dir = pluginFolder({
      "zeta-upper.ts": skillSource("zeta.upper"),
      "alpha-upper.ts": skillSource("alpha.upper"),
      "text-reverse.ts": pluginSource("text.reverse", "POST /v1/text/reverse"),
      "notes.md": "not a plugin",
      "helper.test.ts": "throw new Error('tests are not plugins')",
    });
    const registry = buildRegistry(await loadExternalFiles(dir));
    expect(registry.skills.map((s) => s.id)).toEqual(["alpha.upper", "zeta.upper"]);
    expect(registry.plugins.map((p) => p.id)).toEqual(["text.reverse"]);
    expect(registry.skill("alpha.upper")?.file).toBe(join(dir, "alpha-upper.ts"));
    expect(registry.plugin("text.reverse")?.priceOf({ text: "x" })).toEqual({ base: 4000, algorand: 4000 });
  });

  it("withholds an endpoint whose needs this server lacks, checks it all the same, and refuses an unknown need (issue 42)", async () => {
    const withNeeds = (id: string, route: string, needs: string) => pluginSource(id, route).replace("  summary:", `  needs: ${needs},\n  summary:`);
    const files = await loadExternalFiles(pluginFolder({ "text-find.ts": withNeeds("text.find", "POST /v1/text/find", `["search"]`), "text-reverse.ts": pluginSource("text.reverse", "POST /v1/text/reverse") }));
    const without = buildRegistry(files);
    expect(without.plugins.map((p) => p.id)).toEqual(["text.reverse"]);
    expect(without.plugin("text.find")).toBeUndefined();
    expect(without.withheld).toEqual([{ id: "text.find", missing: ["search"] }]);
    const offered = buildRegistry(files, undefined, new Set(["search"]));
    expect(offered.plugins.map((p) => p.id)).toEqual(["text.find", "text.reverse"]);
    expect(offered.withheld).toEqual([]);
    expect(await problemsFor({ "text-mind.ts": withNeeds("text.mind", "POST /v1/text/mind", `["telepathy"]`) })).toEqual([
      { file: "text-mind.ts", field: "needs", message: 'must be a list of capabilities (search), got ["telepathy"]' },
    ]);
  });

  it("checks a free-text declaration: an input function, anyText a boolean", async () => {
    const problems = await problemsFor({
      "m-one.ts": skillSource("m.one", { freeText: `"any text"` }),
      "m-two.ts": skillSource("m.two", { freeText: `{ input: (text) => ({ word: text }), anyText: "yes" }` }),
      "m-three.ts": skillSource("m.three", { freeText: `{ input: (text) => ({ word: text }), anyText: true }` }),
    });
    expect(problems.filter((p) => p.field === "freeText").map((p) => p.file)).toEqual(["m-one.ts", "m-two.ts"]);
  });

  it("reports every bad declaration together, naming file and field", async () => {
    const problems = await problemsFor({
      "a-one.ts": skillSource("a.one", { price: `"ten cents"` }),
      "b-two.ts": skillSource("b.two", { timeoutMs: "0" }),
      "c-three.ts": skillSource("c.three", { examples: `[{ input: { word: 42 } }]` }),
      "d-four.ts": `export const notDefault = 1;`,
      "e-five.ts": skillSource("e.five"),
      "e-five-again.ts": skillSource("e.five"),
      "f-six.ts": skillSource("f.six", { input: `t.Object({ word: t.String() })` }),
      "g-seven.ts": `import { t } from "tollbooth"; export default { kind: "nope" };`,
      "h-eight.ts": `this is not typescript(`,
      "i-nine.ts": skillSource("wrong.name"),
      "j-ten.ts": pluginSource("j.ten", "POST /v1/jobs/steal"),
      "k-one.ts": pluginSource("k.one", "POST /v1/same"),
      "k-two.ts": pluginSource("k.two", "POST /v1/same"),
      "l-one.ts": skillSource("l.one", { examples: "[]" }),
    });
    const has = (file: string, field: string, text: string | RegExp) =>
      expect(problems.some((p) => p.file === file && p.field === field && (typeof text === "string" ? p.message.includes(text) : text.test(p.message)))).toBe(true);
    has("a-one.ts", "price", "dollar string");
    has("b-two.ts", "timeoutMs", "from 100 to 600000");
    has("c-three.ts", "examples[0].input", "/word");
    has("d-four.ts", "export default", "does not export a plugin");
    has("e-five.ts", "skill", "duplicate id");
    has("f-six.ts", "input", "unknown properties");
    has("g-seven.ts", "export default", "not made by definePlugin");
    has("h-eight.ts", "export default", "could not be imported");
    has("i-nine.ts", "skill", "file name must be wrong-name.ts");
    has("j-ten.ts", "route", "served by Tollbooth itself");
    has("k-two.ts", "route", "duplicate route");
    has("l-one.ts", "examples", "at least one");
    expect(new Set(problems.map((p) => p.file)).size).toBeGreaterThanOrEqual(13);
  });

  it("accepts prices that depend on the body and checks them on every example", async () => {
    const batchPrice = `(input) => (input.times ? { base: "0.003", algorand: "0.006" } : "0.005")`;
    const ok = await loadExternalFiles(pluginFolder({ "text-reverse.ts": pluginSource("text.reverse", "POST /v1/text/reverse", batchPrice) }));
    const entry = buildRegistry(ok).plugin("text.reverse")!;
    expect(entry.priceOf({ text: "a" })).toEqual({ base: 5000, algorand: 5000 });
    expect(entry.priceOf({ text: "a", times: 2 })).toEqual({ base: 3000, algorand: 6000 });

    const problems = await problemsFor({ "text-reverse.ts": pluginSource("text.reverse", "POST /v1/text/reverse", `() => "free"`) });
    expect(problems[0]).toMatchObject({ field: "examples[0].price" });
  });

  it("refuses a folder that does not exist", async () => {
    await expect(loadExternalFiles("/nonexistent/tollbooth-plugins")).rejects.toThrow(/does not exist/);
  });
});
