/**
 * The active-jobs count the free documents show (jobs/job-store.ts keptCount): read at most once per
 * recentActiveMs, one read at a time, forgotten at once by a write of this process, and a read begun
 * before such a write answered but not kept.
 */
import { describe, expect, it } from "bun:test";
import { keptCount, recentActiveMs } from "../../src/jobs/job-store.ts";

describe("keptCount", () => {
  it("reads a synchronous count once while it is recent, again after recentActiveMs or a forget", () => {
    let clock = 0;
    let reads = 0;
    let value = 3;
    const count = keptCount(() => (reads++, value), () => clock);
    expect(count.get()).toBe(3);
    value = 4;
    clock += recentActiveMs - 1;
    expect(count.get()).toBe(3);
    expect(reads).toBe(1);
    clock += 1;
    expect(count.get()).toBe(4);
    value = 5;
    count.forget();
    expect(count.get()).toBe(5);
    expect(reads).toBe(3);
  });

  it("shares one pending read among callers, and does not keep a read a write overtook", async () => {
    let reads = 0;
    const answers: ((n: number) => void)[] = [];
    const count = keptCount(() => {
      reads++;
      return new Promise<number>((resolve) => answers.push(resolve));
    }, () => 0);
    const first = count.get();
    const second = count.get();
    expect(reads).toBe(1);
    count.forget();
    answers[0]!(7);
    expect(await first).toBe(7);
    expect(await second).toBe(7);
    // The read began before the write: the next caller reads again.
    const third = count.get();
    expect(reads).toBe(2);
    answers[1]!(8);
    expect(await third).toBe(8);
    expect(count.get()).toBe(8);
    expect(reads).toBe(2);
  });
});
