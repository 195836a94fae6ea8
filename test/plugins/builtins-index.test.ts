import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderBuiltinIndex } from "../../scripts/gen-index.ts";
import { loadBuiltinFiles } from "../../src/loader/load.ts";
import { buildRegistry } from "../../src/plugin/registry.ts";
import { listPluginFiles } from "../../src/plugin/list-files.ts";

const root = join(import.meta.dir, "../..");

describe("built-in index", () => {
  it("imports every file in plugins/ and skills/ (run `npm run gen` when this fails)", () => {
    const current = readFileSync(join(root, "src/plugin/builtins.generated.ts"), "utf8");
    expect(current).toBe(renderBuiltinIndex());
    const listed = loadBuiltinFiles().map((f) => f.file).sort();
    const onDisk = ["plugins", "skills"].flatMap((d) => listPluginFiles(join(root, d)).map((n) => `${d}/${n}`)).sort();
    expect(listed).toEqual(onDisk);
  });

  it("builds a valid registry from the built-ins alone", () => {
    const files = loadBuiltinFiles();
    const registry = buildRegistry(files);
    expect(registry.plugins.length + registry.skills.length).toBeGreaterThanOrEqual(files.length);
  });
});
