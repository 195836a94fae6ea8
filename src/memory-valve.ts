/**
 * @module memory-valve — holds a busy server near a soft memory limit. JavaScriptCore lets garbage
 * build up to a multiple of what is live before it collects, and a server whose reads pass large
 * pages through its thread (bodies, text, JSON) climbed well above its need under load. Every
 * 250 ms the valve reads the resident size; above the limit it runs a full collection on the
 * server's thread (at most twice a second). Extraction threads pace their own collections
 * (web/threads/collection-pacing.ts): making them collect more often under pressure cost a third
 * of the web-read throughput (scripts/bench/web-read-throughput.ts), this ~1 % of it.
 */
import { collectGarbage } from "./runtime/memory.ts";

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
}

export function startMemoryValve(options: MemoryValveOptions): MemoryValve {
  const { limitBytes, everyMs = 250, gapMs = 500, rss = () => process.memoryUsage.rss(), collect = collectGarbage } = options;
  let lastAt = Number.NEGATIVE_INFINITY;
  let collections = 0;
  let pauseMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    if (rss() <= limitBytes || now - lastAt < gapMs) return;
    collect();
    lastAt = performance.now();
    collections++;
    pauseMs += lastAt - now;
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
  shared ??= { valve: startMemoryValve({ limitBytes }), holders: 0 };
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
