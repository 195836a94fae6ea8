/**
 * readBatch's per-host limit: reads of one batch never have more than `perHost` requests in flight to
 * one host, while other hosts keep going (search results often sit on one site).
 * @see issue 42
 */
import { describe, expect, it } from "bun:test";
import { readBatch } from "../../src/web/batch.ts";
import type { ReadInput, WebEngine } from "../../src/web/engine.ts";
import { exampleReadResult } from "../../src/web/examples.ts";

/** A web engine whose reads take a while and count, per host, how many were in flight at once. */
function countingEngine() {
  const now = new Map<string, number>();
  const most = new Map<string, number>();
  const engine: Pick<WebEngine, "read"> = {
    async read(input: ReadInput) {
      const host = new URL(input.url).host;
      now.set(host, (now.get(host) ?? 0) + 1);
      most.set(host, Math.max(most.get(host) ?? 0, now.get(host)!));
      await Bun.sleep(20);
      now.set(host, now.get(host)! - 1);
      return { ...exampleReadResult, url: input.url };
    },
  };
  return { engine: engine as WebEngine, most };
}

describe("readBatch per-host slots", () => {
  const urls = [...Array.from({ length: 8 }, (_, i) => `https://one.example/${i}`), "https://two.example/a", "https://two.example/b"];
  const options = { format: "text" as const, maxChars: 1000 };

  it("keeps at most 2 reads in flight to one host by default, results in input order", async () => {
    const { engine, most } = countingEngine();
    const results = await readBatch(engine, urls, options, new AbortController().signal, { concurrency: 6, maxUrls: 20 });
    expect(results.map((r) => r.url)).toEqual(urls);
    expect(most.get("one.example")).toBe(2);
    expect(most.get("two.example")).toBe(2);
  });

  it("takes another per-host limit", async () => {
    const { engine, most } = countingEngine();
    await readBatch(engine, urls, options, new AbortController().signal, { concurrency: 6, perHost: 1, maxUrls: 20 });
    expect(most.get("one.example")).toBe(1);
  });
});
