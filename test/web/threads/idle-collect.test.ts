/** A thread collects once it has stayed idle after work, never while busy, never twice for the same work. */
import { describe, expect, it } from "bun:test";
import { createIdleCollector } from "../../../src/web/threads/idle-collect.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("idle collection", () => {
  it("collects once after the thread has been idle for the wait", async () => {
    let collections = 0;
    const collector = createIdleCollector({ afterMs: 30, collect: () => collections++ });
    collector.busy();
    collector.idle(false);
    expect(collections).toBe(0);
    await sleep(80);
    expect(collections).toBe(1);
    // Nothing done since: staying idle collects no more.
    collector.idle(false);
    await sleep(80);
    expect(collections).toBe(1);
  });

  it("calls the collection off when work arrives before the wait is over", async () => {
    let collections = 0;
    const collector = createIdleCollector({ afterMs: 60, collect: () => collections++ });
    for (let i = 0; i < 4; i++) {
      collector.busy();
      collector.idle(false);
      await sleep(20);
    }
    expect(collections).toBe(0);
    await sleep(100);
    expect(collections).toBe(1);
    collector.stop();
  });

  it("does not collect after work that ended with a collection of its own", async () => {
    let collections = 0;
    const collector = createIdleCollector({ afterMs: 20, collect: () => collections++ });
    collector.busy();
    collector.idle(true);
    await sleep(60);
    expect(collections).toBe(0);
  });

  it("shrinks after a load once it has stayed idle the shrink's longer wait, and collects first", async () => {
    const done: string[] = [];
    const shrink = { afterWork: 100, afterMs: 60, run: () => done.push("shrink") };
    const collector = createIdleCollector({ afterMs: 20, collect: () => done.push("collect"), shrink });
    for (let i = 0; i < 4; i++) {
      collector.busy(30);
      collector.idle(false);
    }
    await sleep(40);
    expect(done).toEqual(["collect"]);
    await sleep(80);
    expect(done).toEqual(["collect", "shrink"]);
    // The load's work is spent: the next page is collected after, not shrunk again.
    collector.busy(30);
    collector.idle(false);
    await sleep(120);
    expect(done).toEqual(["collect", "shrink", "collect"]);
  });

  it("still shrinks after a load whose last page ended with a collection of its own", async () => {
    const done: string[] = [];
    const shrink = { afterWork: 100, afterMs: 40, run: () => done.push("shrink") };
    const collector = createIdleCollector({ afterMs: 10, collect: () => done.push("collect"), shrink });
    for (let i = 0; i < 3; i++) {
      collector.busy(30);
      collector.idle(false);
    }
    collector.busy(30);
    collector.idle(true);
    await sleep(100);
    expect(done).toEqual(["shrink"]);
  });

  it("never shrinks for pages that come one by one, each after a pause as long as the shrink's wait", async () => {
    const done: string[] = [];
    const shrink = { afterWork: 100, afterMs: 30, run: () => done.push("shrink") };
    const collector = createIdleCollector({ afterMs: 10, collect: () => done.push("collect"), shrink });
    for (let i = 0; i < 5; i++) {
      collector.busy(40);
      collector.idle(false);
      await sleep(25);
      await sleep(20);
    }
    collector.stop();
    expect(done).not.toContain("shrink");
    expect(done.length).toBeGreaterThanOrEqual(4);
  });
});
