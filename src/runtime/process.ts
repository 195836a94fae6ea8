/**
 * @module runtime/process — blocking pauses and child processes, the same on Bun and Deno.
 */
import { spawn } from "node:child_process";
import { onDeno } from "./which.ts";

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (for a writer waiting on a full pipe, where nothing async may run). */
export function sleepSync(ms: number): void {
  if (onDeno) Atomics.wait(pause, 0, 0, ms);
  else Bun.sleepSync(ms);
}

/** Runs a command with stdout discarded and stderr passed through; resolves its exit code (127 when it cannot start). */
export function runCommand(argv: readonly string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command) return Promise.resolve(127);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", () => resolve(127));
    child.once("close", (code) => resolve(code ?? 1));
  });
}
