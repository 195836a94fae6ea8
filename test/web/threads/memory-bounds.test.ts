/**
 * What bounds a busy server's memory: large pages extracted on one thread only, and the memory
 * valve collecting on the server's thread above its soft limit.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { startMemoryValve } from "../../../src/memory-valve.ts";
import { createExtractPool, type ExtractPool, LARGE_PAGE_CHARS } from "../../../src/web/threads/extract-pool.ts";

const largePage = `<html><body><article>${"<p>A paragraph of a long article, one of many.</p>".repeat(Math.ceil(LARGE_PAGE_CHARS / 48) + 10)}</article></body></html>`;
const smallPage = "<html><body><article><p>A short page.</p></article></body></html>";

let pool: ExtractPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe("large pages", () => {
  it("wait for the first thread instead of growing a second one", async () => {
    pool = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 0 });
    const results = await Promise.all([0, 1, 2].map(() => pool!.extract({ html: largePage, url: "https://example.com/", markdown: false })));
    expect(results.every((r) => r.text.length > LARGE_PAGE_CHARS / 2)).toBe(true);
    expect(pool.started()).toBe(1);
  });

  it("leave small pages free to take another thread", async () => {
    pool = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 0 });
    await Promise.all([
      pool.extract({ html: largePage, url: "https://example.com/", markdown: false }),
      pool.extract({ html: smallPage, url: "https://example.com/", markdown: false }),
    ]);
    expect(pool.started()).toBe(2);
  });
});

describe("memory pressure", () => {
  it("the valve collects on the server's thread above the soft limit, at most once per gap, and says so", async () => {
    let rss = 100;
    let collected = 0;
    const valve = startMemoryValve({ limitBytes: 200, everyMs: 5, gapMs: 50, rss: () => rss, collect: () => collected++ });
    const until = async (done: () => boolean) => {
      for (let waited = 0; !done() && waited < 5000; waited += 5) await Bun.sleep(5);
    };
    try {
      await Bun.sleep(50);
      expect(collected).toBe(0);
      rss = 300;
      const pressedAt = performance.now();
      await until(() => collected >= 3);
      expect(collected).toBeGreaterThanOrEqual(3);
      // Three collections need at least two gaps between them.
      expect(performance.now() - pressedAt).toBeGreaterThanOrEqual(100);
      rss = 100;
      const settled = collected;
      await Bun.sleep(100);
      expect(collected).toBe(settled);
      expect(valve.stats().collections).toBe(settled);
    } finally {
      valve.stop();
    }
  });
});

describe("a valve whose collections give nothing back", () => {
  it("waits twice as long after each, and keeps its pace while they free memory", async () => {
    const windowMs = 600;
    const run = async (freeing: boolean) => {
      let rss = 300;
      let collected = 0;
      // A collection that frees drops the resident size below the limit; the next check finds it up again.
      const valve = startMemoryValve({ limitBytes: 200, everyMs: 5, gapMs: 20, regrowBytes: 50, rss: () => rss, collect: () => (collected++, freeing && (rss = 100)) });
      const lift = setInterval(() => (rss = 300), 5);
      try {
        await Bun.sleep(windowMs);
      } finally {
        valve.stop();
        clearInterval(lift);
      }
      return collected;
    };
    const futile = await run(false);
    const freeing = await run(true);
    // Gaps of 20, 40, 80, 160, 320 ms: at most 6 in the window, where freeing collections run every 20-25 ms.
    expect(futile).toBeGreaterThanOrEqual(2);
    expect(futile).toBeLessThanOrEqual(6);
    expect(freeing).toBeGreaterThan(futile * 2);
  });

  it("collects at the base gap again once the resident size grows by the regrowth", async () => {
    let rss = 300;
    let collected = 0;
    const valve = startMemoryValve({ limitBytes: 200, everyMs: 5, gapMs: 20, maxGapMs: 10_000, regrowBytes: 50, rss: () => rss, collect: () => collected++ });
    try {
      // Five futile collections: the next waits 640 ms.
      for (let waited = 0; collected < 5 && waited < 5000; waited += 5) await Bun.sleep(5);
      const before = collected;
      await Bun.sleep(100);
      expect(collected).toBe(before);
      rss = 400;
      for (let waited = 0; collected === before && waited < 1000; waited += 5) await Bun.sleep(5);
      expect(collected).toBe(before + 1);
    } finally {
      valve.stop();
    }
  });
});

describe("a valve that collects when the process goes quiet", () => {
  it("collects once after work and a quiet spell, never while busy nor twice for one load", async () => {
    let cpu = 0;
    let collected = 0;
    // Far below its limit: only the quiet rule can collect.
    const valve = startMemoryValve({ limitBytes: Number.MAX_SAFE_INTEGER, everyMs: 5, idleAfterMs: 60, cpuMs: () => cpu, collectWhenQuiet: () => collected++ });
    const busy = setInterval(() => (cpu += 10), 5);
    try {
      await Bun.sleep(300);
      expect(collected).toBe(0);
      clearInterval(busy);
      for (let waited = 0; collected === 0 && waited < 5000; waited += 5) await Bun.sleep(5);
      expect(collected).toBe(1);
      await Bun.sleep(300);
      expect(collected).toBe(1);
    } finally {
      clearInterval(busy);
      valve.stop();
    }
  });

  it("shrinks on going quiet (compiled code too), and collects as before above the limit", async () => {
    let cpu = 0;
    let rss = 100;
    const done: string[] = [];
    const valve = startMemoryValve({ limitBytes: 200, everyMs: 5, gapMs: 20, idleAfterMs: 40, cpuMs: () => cpu, rss: () => rss, collect: () => done.push("collect"), collectWhenQuiet: () => done.push("shrink") });
    const busy = setInterval(() => (cpu += 10), 5);
    try {
      await Bun.sleep(100);
      clearInterval(busy);
      for (let waited = 0; done.length === 0 && waited < 5000; waited += 5) await Bun.sleep(5);
      expect(done).toEqual(["shrink"]);
      rss = 300;
      for (let waited = 0; done.length === 1 && waited < 5000; waited += 5) await Bun.sleep(5);
      expect(done[1]).toBe("collect");
    } finally {
      clearInterval(busy);
      valve.stop();
    }
  });
});

describe("the process's valve", () => {
  it("is one for every service of the process, stopped when the last one lets go", async () => {
    const { holdMemoryValve } = await import("../../../src/memory-valve.ts");
    const a = holdMemoryValve(Number.MAX_SAFE_INTEGER);
    const b = holdMemoryValve(1);
    // The first holder's limit stands: nothing is above it.
    await Bun.sleep(300);
    expect(b.stats().collections).toBe(0);
    expect(a.stats()).toEqual(b.stats());
    a.stop();
    a.stop();
    b.stop();
    const c = holdMemoryValve(1);
    try {
      for (let waited = 0; c.stats().collections === 0 && waited < 5000; waited += 50) await Bun.sleep(50);
      expect(c.stats().collections).toBeGreaterThan(0);
    } finally {
      c.stop();
    }
  });
});
