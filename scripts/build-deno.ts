/**
 * Builds dist/deno/: the service as a JS bundle Deno runs (`npm run start:deno -- <serve flags>`, or
 * `deno run -A --v8-flags=--expose-gc --import-map dist/deno/import-map.json dist/deno/main.js serve …`).
 * Deno cannot run the sources as they are: Bun's `with { type: "file" }` imports become asset files
 * beside the bundle (src/runtime/files.ts resolves them), and the extraction and PDF threads' entries
 * are bundled at web/threads/*.js (src/web/threads/thread-pool.ts finds them there). Deno has no
 * run-time resolver hook, so the import map points operator plugin files' `import … from "tollbooth"`
 * at a module re-exporting what the service offers (src/runtime/modules.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk from "../src/sdk.ts";
import { reexportModuleSource } from "../src/runtime/modules.ts";
import { sdkModuleName } from "../src/loader/sdk-module.ts";
import { generateSdkDeclarations } from "./sdk-declarations.ts";

const root = join(import.meta.dir, "..");
export const denoBundleDir = join(root, "dist/deno");

export async function buildDenoBundle(outdir = denoBundleDir): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(root, "src/main.ts"), join(root, "src/web/threads/extract-worker.ts"), join(root, "src/web/threads/pdf-worker.ts")],
    root: join(root, "src"),
    outdir,
    // Node's module names (node:fs, node:sqlite) stay imports, which Deno provides; packages are bundled.
    target: "node",
    format: "esm",
    splitting: true,
    sourcemap: "none",
    define: { TOLLBOOTH_SDK_DECLARATIONS: JSON.stringify(await generateSdkDeclarations()) },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error("the Deno bundle did not build");
  }
  writeFileSync(join(outdir, "tollbooth-sdk.js"), reexportModuleSource(sdkModuleName, Object.keys(sdk).sort()));
  writeFileSync(join(outdir, "import-map.json"), `${JSON.stringify({ imports: { [sdkModuleName]: "./tollbooth-sdk.js" } }, null, 2)}\n`);
}

if (import.meta.main) {
  const started = performance.now();
  await buildDenoBundle();
  console.error(`built ${denoBundleDir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
