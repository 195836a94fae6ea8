/**
 * Builds dist/tollbooth: one executable with every built-in plugin, skill and asset inside,
 * runnable from any directory without node_modules. Regenerates the built-in index first.
 * `bundleOptions` is the build without its output, which scripts/bench/binary.ts --options varies.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderBuiltinIndex } from "./gen-index.ts";
import { generateSdkDeclarations } from "./sdk-declarations.ts";

const root = join(import.meta.dir, "..");

/** Entry points and bundling options of the binary (its output, `compile`, aside). */
export function bundleOptions(sdkDeclarations: string) {
  return {
    // The extraction and PDF threads' entries are bundled beside main; with the root at src/, the binary
    // holds them at web/threads/extract-worker and web/threads/pdf-worker (src/web/threads/thread-pool.ts finds them there).
    entrypoints: [join(root, "src/main.ts"), join(root, "src/web/threads/extract-worker.ts"), join(root, "src/web/threads/pdf-worker.ts")],
    root: join(root, "src"),
    // Minified and without source maps: the smallest of Bun's options (scripts/bench/binary.ts --options; docs/benchmarks.md).
    minify: true,
    // Dynamic imports (payments, the browser, CLI commands) become chunks loaded on first use, as
    // they are from source. One bundle was parsed whole at start: idle RSS 73 MB, split 62 MB
    // (`web-read-throughput.ts --binary dist/tollbooth`).
    splitting: true,
    sourcemap: "none",
    target: "bun",
    define: { TOLLBOOTH_SDK_DECLARATIONS: JSON.stringify(sdkDeclarations) },
  } satisfies Partial<Parameters<typeof Bun.build>[0]>;
}

if (import.meta.main) {
  writeFileSync(join(root, "src/plugin/builtins.generated.ts"), renderBuiltinIndex());
  const outfile = join(root, "dist/tollbooth");
  const started = performance.now();
  // `tollbooth types DIR` writes these; generated from src/sdk.ts (cached while it is unchanged).
  const sdkDeclarations = await generateSdkDeclarations();
  const result = await Bun.build({ ...bundleOptions(sdkDeclarations), compile: { outfile } });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
  const size = Bun.file(outfile).size;
  console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
