/**
 * @module runtime/memory — a full garbage collection on this thread: `Bun.gc(true)`, or V8's `gc()`
 * under Deno when started with `--v8-flags=--expose-gc` (`npm run start:deno` passes it).
 */
import { onDeno } from "./which.ts";

const exposedGc = (globalThis as { gc?: () => void }).gc;

/** Runs a full collection; false when the runtime offers none (Deno without --expose-gc). */
export function collectGarbage(): boolean {
  if (!onDeno) {
    Bun.gc(true);
    return true;
  }
  if (!exposedGc) return false;
  exposedGc();
  return true;
}
