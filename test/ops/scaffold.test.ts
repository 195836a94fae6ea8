/**
 * Skill authors outside the repository: `tollbooth types DIR` and `tollbooth new`, then the
 * TypeScript compiler on that folder alone (no node_modules): the scaffolds type-check and load
 * in the registry, and a `run` returning the wrong shape is a type error.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRegistry } from "../../src/loader/registry.ts";
import { repoRoot } from "../support/binary-build.ts";

const dir = mkdtempSync(join(tmpdir(), "tb-authors-"));

async function run(cmd: string[], cwd = dir): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}
const cli = (...args: string[]) => run([process.execPath, join(repoRoot, "src/main.ts"), ...args]);
const tsc = () => run([process.execPath, join(repoRoot, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", dir]);

describe("types and new", () => {
  it("writes declarations, a tsconfig and starting files that type-check alone and load", async () => {
    const types = await cli("types", dir);
    expect(types.err).toBe("");
    expect(types.code).toBe(0);
    const declarations = readFileSync(join(dir, "tollbooth.d.ts"), "utf8");
    for (const name of ["definePlugin", "defineSkill", "ApiError", "PluginContext"]) expect(declarations).toContain(name);
    expect(declarations).not.toMatch(/from ['"](@sinclair|bun:)/);
    expect(JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8")).compilerOptions.paths).toEqual({ tollbooth: ["./tollbooth.d.ts"] });

    expect((await cli("new", "skill", "text.shout", "--dir", dir)).out).toContain("text-shout.ts");
    expect((await cli("new", "plugin", "page.title", "--dir", dir)).code).toBe(0);
    expect((await cli("new", "skill", "text.shout", "--dir", dir)).code).toBe(1); // never overwrites
    expect((await cli("new", "plugin", "Bad Id", "--dir", dir)).code).toBe(2);
    expect(existsSync(join(dir, "node_modules"))).toBe(false);

    const checked = await tsc();
    expect(checked.out + checked.err).toBe("");
    expect(checked.code).toBe(0);

    // The starting files are valid declarations: their examples validate at load.
    const registry = await loadRegistry({ plugins: dir });
    expect(registry.skills.map((s) => s.definition.skill)).toContain("text.shout");
    expect(registry.plugins.map((p) => p.definition.route)).toContain("POST /v1/page/title");
  }, 300_000);

  it("makes a wrong run return type, an unknown error code, a bad ctx use and a misused module facet type errors", async () => {
    const source = readFileSync(join(dir, "text-shout.ts"), "utf8");
    writeFileSync(join(dir, "text-shout.ts"), source.replace("return { words: text.split(/\\s+/).filter(Boolean).length };", 'return { words: "three" };'));
    writeFileSync(
      join(dir, "bad-ctx.ts"),
      `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: "bad.ctx", summary: "x", input: t.Object({ n: t.Integer() }, { additionalProperties: false }), output: t.Object({ n: t.Integer() }),
  price: "0.001", async: false, timeoutMs: 1000, errors: ["NO_SUCH_CODE"], examples: [{ input: { n: 1 } }],
  async run({ n }, ctx) { ctx.wallet.pay(); const board: number = ctx.capital; const quotes: number = ctx.quotes; return { n: n + board + quotes }; },
});
`,
    );
    const checked = await tsc();
    expect(checked.code).not.toBe(0);
    expect(checked.out).toMatch(/text-shout\.ts\(\d+,\d+\): error TS2322: [^]*Types of property 'words' are incompatible[^]*Type 'string' is not assignable to type 'number'/);
    expect(checked.out).toMatch(/bad-ctx\.ts\(\d+,\d+\): error TS2322: Type '"NO_SUCH_CODE"'/);
    expect(checked.out).toMatch(/bad-ctx\.ts\(\d+,\d+\): error TS2339: Property 'wallet' does not exist/);
    // The feature modules' facets reach operator files typed (each module.ts merges into ModuleFacets; the bundle keeps the merges).
    expect(checked.out).toMatch(/bad-ctx\.ts\(\d+,\d+\): error TS2322: Type 'CapitalFacet' is not assignable to type 'number'/);
    expect(checked.out).toMatch(/bad-ctx\.ts\(\d+,\d+\): error TS2322: Type 'QuoteAccess' is not assignable to type 'number'/);
  }, 120_000);
});
