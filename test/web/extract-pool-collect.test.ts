/**
 * Memory rules of web extraction: a pool thread collects by characters of HTML, before a page
 * that would take it past the budget and after reaching it; the engine loads happy-dom only when
 * it extracts on its own thread (the server, whose threads extract, never evaluates it).
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { planCollections } from "../../src/web/extract-pool.ts";

const BUDGET = 1000;

describe("planCollections", () => {
  it("counts pages' characters until the budget, then collects after answering", () => {
    expect(planCollections(0, 300, BUDGET)).toEqual({ before: false, after: false, since: 300 });
    expect(planCollections(300, 300, BUDGET)).toEqual({ before: false, after: false, since: 600 });
    expect(planCollections(600, 400, BUDGET)).toEqual({ before: false, after: true, since: 0 });
  });

  it("collects before a page that would take the thread past the budget, so it does not land on the garbage", () => {
    expect(planCollections(600, 500, BUDGET)).toEqual({ before: true, after: false, since: 500 });
  });

  it("a page larger than the budget on a clean thread: collect after it, nothing before", () => {
    expect(planCollections(0, 5000, BUDGET)).toEqual({ before: false, after: true, since: 0 });
    expect(planCollections(10, 5000, BUDGET)).toEqual({ before: true, after: true, since: 0 });
  });

  it("a budget of 0 never forces a collection", () => {
    expect(planCollections(10_000, 10_000, 0)).toEqual({ before: false, after: false, since: 0 });
  });
});

describe("engine's in-thread extraction", () => {
  const bun = process.execPath;
  const engine = join(import.meta.dir, "..", "..", "src", "web", "engine.ts");
  const loadedHappyDom = (script: string) => {
    const run = Bun.spawnSync([bun, "-e", script], { stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    return Number(run.stdout.toString().trim());
  };
  const count = `console.log(Object.keys(require.cache).filter((k) => k.includes("happy-dom")).length)`;

  it("importing the engine does not evaluate happy-dom", () => {
    expect(loadedHappyDom(`await import(${JSON.stringify(engine)}); ${count}`)).toBe(0);
  });

  it("extracting an HTML page in-thread loads it on first use, with the same result", () => {
    const script = `
      const { buildReadResult } = await import(${JSON.stringify(engine)});
      const html = "<html><head><title>T</title></head><body><main><h1>Hello</h1><p>Some words here.</p></main></body></html>";
      const r = await buildReadResult({ bytes: new TextEncoder().encode(html), headers: { "content-type": "text/html" }, finalUrl: "https://example.com/", status: 200 },
        { url: "https://example.com/", format: "text", maxChars: 1000 }, "2026-01-01T00:00:00.000Z");
      if (r.title !== "T" || !r.text.includes("Some words here.")) throw new Error("unexpected " + JSON.stringify(r));
      ${count}`;
    expect(loadedHappyDom(script)).toBeGreaterThan(0);
  });
});
