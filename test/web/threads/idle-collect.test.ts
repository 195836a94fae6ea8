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
});
