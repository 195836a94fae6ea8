/**
 * The extraction pool: results from the worker threads are byte-identical to the in-thread
 * path (fixtures and, when present, dev-set pages; text, markdown and selector), errors keep
 * their codes, concurrent calls each get their own page's result, and the engine's read result
 * is the same with either extractor.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { ApiError } from "../../../src/errors.ts";
import { buildReadResult, type ReadInput } from "../../../src/web/engine.ts";
import { type ExtractHtmlInput, extractHtmlSync } from "../../../src/web/extract/extract.ts";
import { createExtractPool, type ExtractPool } from "../../../src/web/threads/extract-pool.ts";
import { FIXTURES } from "../../support/page-server.ts";

const DEV_SET = "/work/shared/bench/extraction/data/html";

function loadPages(): { name: string; html: string }[] {
  const pages = readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".html"))
    .map((name) => ({ name, html: readFileSync(join(FIXTURES, name), "utf8") }));
  if (existsSync(DEV_SET)) {
    // Every 10th dev-set page: varied real markup without making the test slow.
    const files = readdirSync(DEV_SET).filter((f) => f.endsWith(".html.gz")).sort();
    for (const name of files.filter((_, i) => i % 10 === 0)) pages.push({ name, html: gunzipSync(readFileSync(join(DEV_SET, name))).toString("utf8") });
  }
  return pages;
}

const pages = loadPages();
// Both threads from the first page that waits: extraction is fast enough that 48 pages can pass on one
// thread before a wait reaches the default 100 ms (the start rule has its own tests below). No thread ends
// for idling, so the count of started threads is the start rule's alone (the retirement has its own test).
const pool = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 0 });

afterAll(async () => {
  await pool.close();
});

const json = (value: unknown) => JSON.stringify(value);

describe("extraction pool", () => {
  it("returns byte-identical results to the in-thread path, for text and markdown", async () => {
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) {
      for (const markdown of [false, true]) {
        const input: ExtractHtmlInput = { html: page.html, url: `https://example.com/${page.name}`, markdown };
        expect({ page: page.name, result: json(await pool.extract(input)) }).toEqual({ page: page.name, result: json(extractHtmlSync(input)) });
      }
    }
    expect(pool.started()).toBeGreaterThanOrEqual(1);
  });

  it("scopes to a selector exactly as in-thread", async () => {
    const html = readFileSync(join(FIXTURES, "article.html"), "utf8");
    const input: ExtractHtmlInput = { html, url: "https://example.com/a", selector: "h1", markdown: true };
    expect(json(await pool.extract(input))).toBe(json(extractHtmlSync(input)));
  });

  it("brings selector errors back as the same ApiError codes", async () => {
    const html = "<html><body><p>one</p></body></html>";
    const missing = pool.extract({ html, url: "https://example.com/", selector: "article.none", markdown: false });
    await expect(missing).rejects.toBeInstanceOf(ApiError);
    await expect(missing).rejects.toMatchObject({ code: "SELECTOR_NOT_FOUND", status: 422 });
    await expect(pool.extract({ html, url: "https://example.com/", selector: "p[[", markdown: false })).rejects.toMatchObject({ code: "SELECTOR_INVALID", status: 400 });
  });

  it("gives each of many concurrent calls its own page's result, on every thread", async () => {
    const inputs = Array.from({ length: 48 }, (_, i) => {
      const page = pages[i % pages.length]!;
      return { html: page.html, url: `https://example.com/${i}/${page.name}`, markdown: i % 3 === 0 } satisfies ExtractHtmlInput;
    });
    const results = await Promise.all(inputs.map((input) => pool.extract(input)));
    results.forEach((result, i) => expect(json(result)).toBe(json(extractHtmlSync(inputs[i]!))));
    expect(pool.started()).toBe(2);
  });

  // The pool takes a page's bytes (moved to its thread, not copied): each read gets its own.
  const articleResource = () => ({
    bytes: new Uint8Array(readFileSync(join(FIXTURES, "article.html"))),
    headers: { "content-type": "text/html; charset=utf-8" },
    finalUrl: "https://example.com/article",
    status: 200,
  });
  const at = "2025-01-01T00:00:00.000Z";

  it("makes the engine's read result identical to the in-thread one", async () => {
    const input: ReadInput = { url: "https://example.com/article", format: "markdown", maxChars: 20_000 };
    expect(json(await buildReadResult(articleResource(), input, at, pool.extract))).toBe(json(await buildReadResult(articleResource(), input, at)));
  });

  it("moves the page's bytes to the thread, and cuts text and Markdown there as the engine cuts them after", async () => {
    const resource = articleResource();
    const input: ReadInput = { url: "https://example.com/article", format: "markdown", maxChars: 300 };
    const onThread = await buildReadResult(resource, input, at, pool.extract);
    expect(resource.bytes.byteLength).toBe(0);
    // A line filter reads the whole text, so the engine cuts after it; one that keeps every line cuts the same.
    const cutAfter = await buildReadResult(articleResource(), { ...input, filters: { lines: (content) => content } }, at, pool.extract);
    expect(onThread.truncated).toBe(true);
    expect(onThread.characters).toBeLessThanOrEqual(300);
    expect(json(onThread)).toBe(json(cutAfter));
  });

  it("refuses a bot challenge it decodes on the thread, with the code the in-thread read gives", async () => {
    const challenge = () => ({
      bytes: new Uint8Array(readFileSync(join(FIXTURES, "challenge-captcha.html"))),
      headers: { "content-type": "text/html; charset=utf-8" },
      finalUrl: "https://example.com/wall",
      status: 200,
    });
    const input: ReadInput = { url: "https://example.com/wall", format: "text", maxChars: 20_000 };
    await expect(buildReadResult(challenge(), input, at)).rejects.toMatchObject({ code: "BOT_CHALLENGE", status: 422 });
    await expect(buildReadResult(challenge(), input, at, pool.extract)).rejects.toMatchObject({ code: "BOT_CHALLENGE", status: 422 });
  });

  it("lets small pages pass a slow page: no page waits behind another on a busy thread", async () => {
    const slow = `<html><body><main>${"<div><p>slow words here</p><span>x</span></div>".repeat(50_000)}</main></body></html>`;
    const small = readFileSync(join(FIXTURES, "short.html"), "utf8");
    const finished: string[] = [];
    const track = (name: string, input: ExtractHtmlInput) => pool.extract(input).then(() => void finished.push(name));
    const slowDone = track("slow", { html: slow, url: "https://example.com/slow", markdown: false });
    const smallDone = Array.from({ length: 12 }, (_, i) => track(`small-${i}`, { html: small, url: `https://example.com/s${i}`, markdown: false }));
    await Promise.all([slowDone, ...smallDone]);
    // Handed out by the least pending count, half the small pages queued behind the slow one on its thread.
    expect(finished.at(-1)).toBe("slow");
  });

  it("refuses work once closed", async () => {
    const closing = createExtractPool({ size: 1 });
    const html = readFileSync(join(FIXTURES, "short.html"), "utf8");
    await closing.extract({ html, url: "https://example.com/", markdown: false });
    await closing.close();
    expect(closing.started()).toBe(0);
    await expect(closing.extract({ html, url: "https://example.com/", markdown: false })).rejects.toThrow("closed");
  });
});

describe("extraction pool threads", () => {
  const small = readFileSync(join(FIXTURES, "short.html"), "utf8");
  const pageAt = (i: number): ExtractHtmlInput => ({ html: small, url: `https://example.com/t${i}`, markdown: false });

  it("keeps to one thread while pages only briefly wait for it", async () => {
    const patient = createExtractPool({ size: 2, startAfterWaitMs: 5_000, retireIdleAfterMs: 0 });
    try {
      await Promise.all(Array.from({ length: 6 }, (_, i) => patient.extract(pageAt(i))));
      expect(patient.started()).toBe(1);
    } finally {
      await patient.close();
    }
  });

  it("starts the second thread when a page waits: at once with no wait set, else once the wait lasts", async () => {
    const eager = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 0 });
    const waiting = createExtractPool({ size: 2, startAfterWaitMs: 50, retireIdleAfterMs: 0 });
    try {
      await Promise.all(Array.from({ length: 6 }, (_, i) => eager.extract(pageAt(i))));
      expect(eager.started()).toBe(2);
      // A page long enough to keep the first thread busy well past 50 ms, and one behind it.
      const slow = `<html><body><main>${"<div><p>slow words here</p><span>x</span></div>".repeat(50_000)}</main></body></html>`;
      await Promise.all([waiting.extract({ html: slow, url: "https://example.com/slow", markdown: false }), waiting.extract(pageAt(0))]);
      expect(waiting.started()).toBe(2);
    } finally {
      await Promise.all([eager.close(), waiting.close()]);
    }
  });

  it("ends a thread beyond the first once it idles, keeps the first, and starts it again for the next backlog", async () => {
    const retiring = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 1_000 });
    const keeping = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 0 });
    const batch = (pool: ExtractPool) => Promise.all(Array.from({ length: 6 }, (_, i) => pool.extract(pageAt(i))));
    try {
      await Promise.all([batch(retiring), batch(keeping)]);
      expect([retiring.started(), keeping.started()]).toEqual([2, 2]);
      for (let waited = 0; retiring.started() > 1 && waited < 10_000; waited += 20) await Bun.sleep(20);
      expect([retiring.started(), keeping.started()]).toEqual([1, 2]);
      const again = await batch(retiring);
      again.forEach((result, i) => expect(json(result)).toBe(json(extractHtmlSync(pageAt(i)))));
      expect(retiring.started()).toBe(2);
    } finally {
      await Promise.all([retiring.close(), keeping.close()]);
    }
  }, 30_000);

  it("ends the last thread too once it has idled alone long enough, and starts one again for the next page", async () => {
    const emptying = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 200, retireLastIdleAfterMs: 600 });
    const keeping = createExtractPool({ size: 2, startAfterWaitMs: 0, retireIdleAfterMs: 200, retireLastIdleAfterMs: 0 });
    const batch = (pool: ExtractPool) => Promise.all(Array.from({ length: 6 }, (_, i) => pool.extract(pageAt(i))));
    try {
      await Promise.all([batch(emptying), batch(keeping)]);
      expect(emptying.started()).toBeGreaterThan(0);
      for (let waited = 0; (emptying.started() > 0 || keeping.started() > 1) && waited < 10_000; waited += 20) await Bun.sleep(20);
      expect([emptying.started(), keeping.started()]).toEqual([0, 1]);
      expect(json(await emptying.extract(pageAt(0)))).toBe(json(extractHtmlSync(pageAt(0))));
      expect(emptying.started()).toBe(1);
    } finally {
      await Promise.all([emptying.close(), keeping.close()]);
    }
  }, 30_000);
});
