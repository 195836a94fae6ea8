/**
 * @module runtime/memory — full garbage collections on this thread: `Bun.gc(true)`, or V8's `gc()`
 * under Deno when started with `--v8-flags=--expose-gc` (`npm run start:deno` passes it).
 */
import { onDeno } from "./which.ts";

const exposedGc = (globalThis as { gc?: () => void }).gc;

/** bun:jsc, looked up at run time so that the Deno bundle never asks for it. */
const bunJsc = onDeno ? undefined : (process as unknown as { getBuiltinModule(name: string): { fullGC(): number } | undefined }).getBuiltinModule("bun:jsc");

/** Runs a full collection and gives what it freed back to the system; false when the runtime offers none (Deno without --expose-gc). */
export function collectGarbage(): boolean {
  if (!onDeno) {
    Bun.gc(true);
    return true;
  }
  if (!exposedGc) return false;
  exposedGc();
  return true;
}

/**
 * For a thread that has gone quiet after work: JavaScriptCore's shrinkFootprint (`Bun.shrink()`) throws away the
 * code its JIT compiled, runs a full collection and gives free memory back, once the running callback has returned
 * (it waits for the engine to be idle). Code compiled for a load is most of what an idle process keeps beyond its
 * start (docs/benchmarks.md, memory); the next load compiles it again.
 */
export function shrinkFootprint(): boolean {
  if (onDeno) return collectGarbage();
  Bun.shrink();
  return true;
}

/**
 * A full collection that only frees: JavaScriptCore's own (bun:jsc fullGC), without what `Bun.gc(true)`
 * does beside it. For collections paced under load: one thread extracting the dev set with a collection
 * every 1M characters of HTML took 9.2-9.9 ms of CPU a page with `Bun.gc(true)` (1.3-1.6 ms of it on a
 * "JSCWarmUp" thread), 6.7-6.9 ms with this one, on the loaded shared machine, in one run; its RSS peak
 * was 129-133 MiB against 145-147 MiB, so memory is given back by `collectGarbage` when the thread idles.
 */
export function collectGarbageKeepingPace(): boolean {
  if (bunJsc) {
    bunJsc.fullGC();
    return true;
  }
  return collectGarbage();
}
