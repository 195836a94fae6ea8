/**
 * @module memory-valve — holds a busy server near a soft memory limit. JavaScriptCore lets garbage
 * build up to a multiple of what is live before it collects, and a server whose reads pass large
 * pages through its thread (bodies, text, JSON) climbed well above its need under load. Every
 * 250 ms the valve reads the resident size; above the limit it runs a full collection on the
 * server's thread (at most twice a second). A collection that leaves the process above the limit having
 * given back little (the memory is the extraction threads' heaps or mapped code, not this thread's garbage)
 * doubles the wait before the next one, up to `maxGapMs`, unless the resident size grows again by `regrowBytes`:
 * on the shipped binary under web-read load (RSS ~200-230 MiB against the 200 MiB default) the valve ran its
 * 37 ms collection twice a second for nothing, 164 collections (6.1 s of the server thread) in a 3-minute soak.
 * The process's valve also shrinks once when the process goes quiet after work (CPU under a tenth of a core for
 * `idleAfterMs`), as an extraction thread does when it idles after a load: the server's thread gives back what its
 * garbage holds and the code compiled for the load (runtime/memory.ts shrinkFootprint) instead of keeping them until
 * the next one. With the threads' shrink, RSS 5 s after a soak's load was 112-116 against 132-135 MiB, 123 against
 * 131 without this one (web/threads/extract-pool.ts DEFAULT_IDLE_SHRINK_AFTER_CHARS).
 * Extraction threads pace their own collections
 * (web/threads/collection-pacing.ts): making them collect more often under pressure cost a third
 * of the web-read throughput (scripts/bench/web-read-throughput.ts), this ~1 % of it.
 */
import { collectGarbage, shrinkFootprint } from "./runtime/memory.ts";

export interface MemoryValve {
  /** Collections the valve ran, and the milliseconds they held the thread. */
  stats(): { collections: number; pauseMs: number };
  stop(): void;
}

export interface MemoryValveOptions {
  readonly limitBytes: number;
  readonly everyMs?: number;
  /** Least time between two collections. */
  readonly gapMs?: number;
  readonly rss?: () => number;
  readonly collect?: () => void;
  /** What runs once when the process goes quiet after work (default: shrinkFootprint, compiled code thrown away too). */
  readonly collectWhenQuiet?: () => void;
  /** Longest wait between two collections that each gave back less than `regrowBytes` (default 60 gaps). */
  readonly maxGapMs?: number;
  /** Growth of the resident size since the last collection that calls the next one at the base gap (default 16 MiB). */
  readonly regrowBytes?: number;
  /** Milliseconds of quiet (CPU under a tenth of a core) after work before one collection (0 or absent: none). */
  readonly idleAfterMs?: number;
  /** CPU milliseconds the process has used (default: process.cpuUsage, every thread). */
  readonly cpuMs?: () => number;
}

const processCpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

export function startMemoryValve(options: MemoryValveOptions): MemoryValve {
  const { limitBytes, everyMs = 250, gapMs = 500, rss = () => process.memoryUsage.rss(), collect = collectGarbage, collectWhenQuiet = shrinkFootprint } = options;
  const maxGapMs = options.maxGapMs ?? gapMs * 60;
  const regrowBytes = options.regrowBytes ?? 16 * 1024 * 1024;
  let lastAt = Number.NEGATIVE_INFINITY;
  let collections = 0;
  let pauseMs = 0;
  /** The wait before the next collection, doubled after each that gave little back. */
  let gap = gapMs;
  /** The resident size right after the last collection. */
  let afterLast = 0;
  const idleAfterMs = options.idleAfterMs ?? 0;
  const cpuMs = options.cpuMs ?? processCpuMs;
  let cpuAt = idleAfterMs > 0 ? cpuMs() : 0;
  /** Since when the process has been quiet, and whether it worked since the last collection. */
  let quietSince = performance.now();
  let workedSince = false;
  const run = (now: number, collectNow = collect) => {
    collectNow();
    lastAt = performance.now();
    collections++;
    pauseMs += lastAt - now;
    workedSince = false;
  };
  const timer = setInterval(() => {
    const now = performance.now();
    if (idleAfterMs > 0) {
      const cpu = cpuMs();
      if (cpu - cpuAt > everyMs / 10) {
        quietSince = now;
        workedSince = true;
      } else if (workedSince && now - quietSince >= idleAfterMs) {
        run(now, collectWhenQuiet);
        cpuAt = cpuMs();
        return;
      }
      cpuAt = cpu;
    }
    const before = rss();
    if (before <= limitBytes) {
      gap = gapMs;
      return;
    }
    if (now - lastAt < (before > afterLast + regrowBytes ? gapMs : gap)) return;
    run(now);
    afterLast = rss();
    gap = afterLast > limitBytes && before - afterLast < regrowBytes ? Math.min(gap * 2, maxGapMs) : gapMs;
  }, everyMs);
  timer.unref?.();
  return {
    stats: () => ({ collections, pauseMs: Math.round(pauseMs) }),
    stop: () => clearInterval(timer),
  };
}

let shared: { valve: MemoryValve; holders: number } | undefined;

/**
 * The process's one valve (memory is the process's, however many services it runs): the first
 * holder's limit starts it, and it stops when the last holder releases it.
 */
export function holdMemoryValve(limitBytes: number): MemoryValve {
  shared ??= { valve: startMemoryValve({ limitBytes, idleAfterMs: 1000 }), holders: 0 };
  const held = shared;
  held.holders++;
  let released = false;
  return {
    stats: () => held.valve.stats(),
    stop() {
      if (released) return;
      released = true;
      if (--held.holders === 0) {
        held.valve.stop();
        if (shared === held) shared = undefined;
      }
    },
  };
}
