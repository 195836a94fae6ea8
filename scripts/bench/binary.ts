/**
 * Size of dist/tollbooth and its time to first response (spawn → first 200 from /health),
 * next to `bun src/main.ts` (the reference) in the same run. Median of N starts each.
 * Usage: bun scripts/bench/binary.ts [N] [--reference BIN]   (run `npm run build` first; --reference: another binary,
 *        e.g. the previous main's, started in turns with dist/tollbooth in the same run)
 *        bun scripts/bench/binary.ts --options   what each of Bun's build options makes of the size: the bundle
 *        (JS chunks and embedded files) under each, and the executable compiled with bytecode beside dist/tollbooth.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess } from "../../test/support/spawn-binary.ts";
import { bundleOptions } from "../build.ts";
import { generateSdkDeclarations } from "../sdk-declarations.ts";

const root = join(import.meta.dir, "../..");
const runs = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Each command's times to first response, the commands started in turns (`runs` each). */
async function measureInTurns(cmds: string[][]): Promise<number[][]> {
  const times: number[][] = cmds.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [at, cmd] of cmds.entries()) {
      const cwd = mkdtempSync(join(tmpdir(), "tb-bench-"));
      const started = await startProcess([...cmd, "serve", "--port", "0", "--data", join(cwd, "data")], { cwd });
      times[at]!.push(started.firstResponseMs);
      await started.stop();
    }
  }
  return times;
}

const binary = join(root, "dist/tollbooth");
const size = statSync(binary).size;
// The Bun runtime every compiled executable carries whole (this Bun, the one scripts/build.ts compiles with):
// what is left is ours (bundled JS, the mupdf WASM, Swagger UI's files).
const runtime = statSync(process.execPath).size;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
console.log(`binary size: ${mib(size)} (${(size / 1e6).toFixed(1)} MB); the Bun runtime alone (${process.execPath}) ${mib(runtime)}, ours ${mib(size - runtime)}`);

if (process.argv.includes("--options")) {
  const base = bundleOptions(await generateSdkDeclarations());
  const variants: [string, Record<string, unknown>][] = [
    ["as built (minify, splitting, no source map)", {}],
    ["minify off", { minify: false }],
    ["minify whitespace and syntax, identifiers kept", { minify: { whitespace: true, syntax: true, identifiers: false } }],
    ["source map linked", { sourcemap: "linked" }],
    ["splitting off", { splitting: false }],
  ];
  for (const [name, change] of variants) {
    const outdir = mkdtempSync(join(tmpdir(), "tb-size-"));
    const result = await Bun.build({ ...base, ...change, outdir } as Parameters<typeof Bun.build>[0]);
    const total = (keep: (path: string) => boolean) => mib(result.outputs.filter((o) => keep(o.path)).reduce((sum, o) => sum + o.size, 0));
    console.log(`  ${name.padEnd(48)} bundle ${total(() => true)}: JS ${total((p) => p.endsWith(".js") && !p.includes("swagger-ui"))}, maps ${total((p) => p.endsWith(".map"))}, files ${total((p) => !p.endsWith(".map") && (!p.endsWith(".js") || p.includes("swagger-ui")))}`);
    rmSync(outdir, { recursive: true, force: true });
  }
  // Bytecode exists only for compiled ESM: compile once more with it.
  const outdir = mkdtempSync(join(tmpdir(), "tb-size-"));
  const outfile = join(outdir, "tollbooth");
  // Bytecode defaults the format to CommonJS, where Bun does not split: the binary's ESM is asked for.
  const compiled = await Bun.build({ ...base, bytecode: true, format: "esm", compile: { outfile } } as Parameters<typeof Bun.build>[0]).catch((error: Error) => ({ success: false, logs: [error.message] }));
  console.log(compiled.success ? `  bytecode on (compiled): ${mib(statSync(outfile).size)} against ${mib(size)} as built` : `  bytecode on: the build failed (${compiled.logs.map(String).join("; ").slice(0, 200)})`);
  rmSync(outdir, { recursive: true, force: true });
  process.exit(0);
}

const referenceAt = process.argv.indexOf("--reference");
const reference = referenceAt > 0 ? process.argv[referenceAt + 1] : undefined;
const cmds = [[binary], ...(reference ? [[reference]] : []), [process.execPath, join(root, "src/main.ts")]];
const [bin, ...rest] = await measureInTurns(cmds);
const dev = rest.at(-1)!;
const refLine = reference ? ` | ${reference} ${median(rest[0]!).toFixed(0)} ms` : "";
console.log(`time to first response (median of ${runs}, taking turns): dist/tollbooth ${median(bin!).toFixed(0)} ms${refLine} | bun src/main.ts ${median(dev).toFixed(0)} ms`);
