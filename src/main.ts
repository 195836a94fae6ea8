#!/usr/bin/env bun
/**
 * @module main — the `tollbooth` executable's entry: `serve` first starts itself again with the engine's options
 * (runtime/jit-options.ts) before the rest of the program loads, then command.ts runs the command line.
 */
import { commandOf } from "./runtime/command-line.ts";
import { restartWithJitOptions } from "./runtime/jit-options.ts";

const args = process.argv.slice(2);
// The engine reads its options only at start; restarting before command.ts and its imports load saves their load once.
if (commandOf(args) === "serve") restartWithJitOptions();
const { runCommandLine } = await import("./command.ts");
process.exit(await runCommandLine(args));
