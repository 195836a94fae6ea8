/**
 * @module web/pdf/pdf-wasm — loads the mupdf WASM engine once, on first use (Bun-specific seam).
 *
 * mupdf's loader looks for `mupdf-wasm.wasm` beside its own module file, which does not exist inside a
 * `bun build --compile` binary. Importing the file with `{ type: "file" }` makes Bun embed it and give us a
 * path that works from source (the file in node_modules), from the binary (`/$bunfs/…`) and from the JS
 * bundle Deno runs (runtime/files.ts resolves it there); mupdf reads the path we hand it through its
 * documented `$libmupdf_wasm_Module.locateFile` hook.
 */
import type * as Mupdf from "mupdf";
import wasmPath from "../../../node_modules/mupdf/dist/mupdf-wasm.wasm" with { type: "file" };
import { assetPath } from "../../runtime/files.ts";

export type MupdfModule = typeof Mupdf;

let loading: Promise<MupdfModule> | undefined;

/**
 * The mupdf module, instantiated once; its console warnings are silenced (they describe untrusted input). ICC
 * colour management is off: text extraction uses colour only for each character's colour, which nothing here
 * reads, and converting every text run's fill colour through lcms2 was a tenth of the extraction time.
 */
export function loadMupdf(): Promise<MupdfModule> {
  loading ??= instantiateMupdf();
  return loading;
}

async function instantiateMupdf(): Promise<MupdfModule> {
  // Must be set before mupdf's top-level await instantiates the WASM, hence the dynamic import below.
  globalThis.$libmupdf_wasm_Module = { locateFile: () => assetPath(wasmPath) };
  const mupdf = await import("mupdf");
  mupdf.setLog(() => {});
  mupdf.disableICC();
  return mupdf;
}
