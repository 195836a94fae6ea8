/**
 * @module runtime/files — files bundled with the service. Bun's `with { type: "file" }` import gives a
 * path: absolute from source, `/$bunfs/…` inside the compiled binary, and `./NAME-HASH.ext` (relative to
 * the bundle's folder) in the JS bundle Deno runs (scripts/build-deno.ts).
 */
import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { onDeno } from "./which.ts";

/** The bundle's folder: this module is bundled into a chunk at the bundle's root. */
const bundleRoot = new URL("./", import.meta.url);

/** An absolute path for an imported file's path, whichever way the service was built. */
export function assetPath(imported: string): string {
  if (isAbsolute(imported) || !imported.startsWith(".")) return imported;
  return fileURLToPath(new URL(imported, bundleRoot));
}

const read = new Map<string, Uint8Array<ArrayBuffer>>();

/** A response body for a bundled file: Bun streams it from disk or the binary; Deno's is read once and kept. */
export function fileBody(imported: string): BodyInit {
  const path = assetPath(imported);
  if (!onDeno) return Bun.file(path);
  let bytes = read.get(path);
  if (!bytes) read.set(path, (bytes = new Uint8Array(readFileSync(path))));
  return bytes;
}
