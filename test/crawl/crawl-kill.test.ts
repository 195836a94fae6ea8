/**
 * A crawl survives kill -9 (issue 42): the server process is SIGKILLed half way through a crawl and
 * started again on the same data folder; the crawl finishes with every page of the site delivered
 * exactly once (a page read or in flight at the kill may be fetched again, never delivered twice).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess, type StartedProcess } from "../support/spawn-binary.ts";

const root = join(import.meta.dir, "../..");
const PAGES = 120;
const FANOUT = 4;

const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
    const n = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? -1);
    if (n < 0 || n >= PAGES) return new Response("not found", { status: 404 });
    // Slow enough that the kill lands mid-crawl.
    await Bun.sleep(20);
    const links = Array.from({ length: FANOUT }, (_, k) => FANOUT * n + k + 1).filter((c) => c < PAGES);
    return new Response(
      `<!doctype html><html><head><title>Page ${n}</title></head><body><nav>${links.map((c) => `<a href="/p/${c}">Page ${c}</a>`).join(" ")}</nav>` +
        `<main><h1>Page ${n}</h1><p>Page ${n} of the kill test site, with words enough to be read as its main text.</p></main></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  },
});
const origin = `http://127.0.0.1:${site.port}`;

const started: StartedProcess[] = [];
afterAll(async () => {
  for (const p of started) await p.stop().catch(() => {});
  await site.stop(true);
});

async function serve(data: string): Promise<StartedProcess> {
  const args = ["serve", "--port", "0", "--data", data, "--payments", "off", "--unsafe-allow-loopback-targets", "--render", "off"];
  const crawl = ["--crawl-lanes", "2", "--crawl-per-host", "2", "--crawl-host-delay-ms", "0", "--crawl-lease-sec", "2"];
  const p = await startProcess([process.execPath, "src/main.ts", ...args, ...crawl], { cwd: root });
  started.push(p);
  return p;
}

type CrawlStatus = { status: string; counts: Record<string, number>; pages: { url: string }[]; next_cursor: string; more_pages: boolean };
async function status(base: string, id: string, cursor = 0, limit = 1): Promise<CrawlStatus> {
  const response = await fetch(`${base}/v1/web/crawl/${id}?cursor=${cursor}&limit=${limit}`);
  expect(response.status).toBe(200);
  return (await response.json()) as CrawlStatus;
}
const ended = (s: string) => !["queued", "running"].includes(s);

describe("a crawl and kill -9", () => {
  it("resumes on the same data after the server is killed half way, and delivers every page exactly once", async () => {
    const data = mkdtempSync(join(tmpdir(), "tb-crawl-kill-"));
    const first = await serve(data);
    const bought = await fetch(`${first.baseUrl}/v1/web/crawl`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${origin}/p/0`, limit: PAGES, max_depth: 10, sitemap: "skip" }),
    });
    expect(bought.status).toBe(202);
    const id = String(((await bought.json()) as { crawl_id: string }).crawl_id);

    let before: CrawlStatus;
    for (;;) {
      before = await status(first.baseUrl, id);
      if (before.counts.fetched! >= PAGES / 4 || ended(before.status)) break;
      await Bun.sleep(5);
    }
    expect(before.status).toBe("running");
    expect(before.counts.fetched).toBeLessThan(PAGES);
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    const second = await serve(data);
    let end: CrawlStatus;
    for (;;) {
      end = await status(second.baseUrl, id);
      if (ended(end.status)) break;
      await Bun.sleep(50);
    }
    expect(end.status).toBe("completed");
    expect(end.counts.fetched).toBe(PAGES);
    const pages: { url: string }[] = [];
    for (let cursor = 0, more = true; more; ) {
      const page = await status(second.baseUrl, id, cursor, 50);
      pages.push(...page.pages);
      cursor = Number(page.next_cursor);
      more = page.more_pages;
    }
    expect(pages.length).toBe(PAGES);
    expect(new Set(pages.map((p) => p.url))).toEqual(new Set(Array.from({ length: PAGES }, (_, n) => `${origin}/p/${n}`)));
  }, 60_000);
});
