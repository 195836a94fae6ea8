/**
 * @module runtime/jit-options — JavaScriptCore's options that `tollbooth serve` runs with. The engine reads them
 * from `BUN_JSC_*` variables once, when the process starts (Bun offers no flag or compile option for them), so
 * a server started without them starts itself again at once with them set: execve, same pid, same arguments.
 */
import { onDeno } from "./which.ts";

/**
 * The optimizing JIT inlines less (issue 41; docs/benchmarks.md, the sixth pass at the soak's peak): calls three
 * deep instead of five, and in FTL, JavaScriptCore's top tier, only callees of up to 80 bytecodes instead of 170 (DFG's own
 * limit). The peak of a mixed load is set by the compilations at its start, and a smaller inlined graph is
 * less compiler memory at once: a 3-minute soak's peak 11-21 MiB lower at the same calls and server CPU a call.
 * Each is added only when the environment leaves it unset: an operator's own settings win.
 */
export const SERVE_JIT_OPTIONS: Readonly<Record<string, string>> = {
  BUN_JSC_maximumInliningDepth: "3",
  BUN_JSC_maximumFunctionForCallInlineCandidateBytecodeCostForFTL: "80",
};

/** The options `env` leaves unset. */
export function missingJitOptions(env: Readonly<Record<string, string | undefined>>, options = SERVE_JIT_OPTIONS): Record<string, string> {
  return Object.fromEntries(Object.entries(options).filter(([name]) => env[name] === undefined));
}

/**
 * Replaces this process by itself with the missing options set; returns when none is missing, and on Deno or a
 * platform without execve (the server then runs with the engine's defaults).
 */
export function restartWithJitOptions(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: Record<string, string | undefined>) => never }).execve;
  if (onDeno || typeof execve !== "function") return;
  const missing = missingJitOptions(process.env);
  if (Object.keys(missing).length === 0) return;
  // The compiled binary's argv[1] is its own bundle (/$bunfs/…), which it must not be given again; from source it is the script.
  const compiled = Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:\\~BUN");
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  try {
    execve.call(process, process.execPath, [process.execPath, ...args], { ...process.env, ...missing });
  } catch {
    // execve failed (the executable moved or was replaced): run on as started.
  }
}
