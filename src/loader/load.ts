/**
 * @module loader/load — finds plugin and skill files: the built-ins bundled into the binary
 * (a generated static index) and an operator's folder read at start, in sorted order.
 */
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { builtinFiles } from "../plugin/builtins.generated.ts";
import { listPluginFiles } from "../plugin/list-files.ts";
import type { LoadedFile } from "../plugin/registry.ts";
import { registerSdkModule } from "./sdk-module.ts";

export function loadBuiltinFiles(): LoadedFile[] {
  return builtinFiles.map((f): LoadedFile => ({ file: f.file, source: "builtin", exports: f.exports }));
}

/** Imports every plugin file in `dir`; a file that fails to import is reported, not thrown. */
export async function loadExternalFiles(dir: string): Promise<LoadedFile[]> {
  const root = resolve(dir);
  const stat = statSync(root, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) throw new Error(`plugins folder ${root} does not exist or is not a folder`);
  registerSdkModule();
  const files: LoadedFile[] = [];
  for (const name of listPluginFiles(root)) {
    const path = join(root, name);
    try {
      const exports = (await import(path)) as Record<string, unknown>;
      files.push({ file: path, source: "external", exports });
    } catch (error) {
      files.push({ file: path, source: "external", exports: {}, loadError: (error as Error).message ?? String(error) });
    }
  }
  return files;
}
