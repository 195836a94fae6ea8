/**
 * @module runtime/which — the one question "which runtime is this?" (Bun or Deno). Only the modules of
 * runtime/ ask it; everything else calls them.
 *
 * Room runtime/: what differs between Bun and Deno (serving, the client address, threads, garbage
 * collection, files, modules offered to plugin files). It imports nothing of ours.
 */
export type RuntimeName = "bun" | "deno";

interface RuntimeGlobals {
  Bun?: unknown;
  Deno?: unknown;
}

const globals = globalThis as RuntimeGlobals;

export const runtimeName: RuntimeName = globals.Deno !== undefined && globals.Bun === undefined ? "deno" : "bun";

export const onDeno = runtimeName === "deno";
