/**
 * Render contexts kept warm between callers (render-context.ts): a second caller in the same context sees
 * nothing the first caller's page left (globals, window.name, local and session storage, cookies set by script
 * and by the server, IndexedDB, Cache Storage, history, the HTTP cache); a context whose page framed another
 * origin, or whose render failed, is not reused; a renderer process killed mid-render costs that render a 502
 * and the next render works.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { listProcessTree } from "../../../scripts/bench/render-rss.ts";
import { createHarness, eventually, type Harness, rejection } from "./render-harness.ts";
import { type RenderSite, startRenderSite } from "./render-site.ts";
import { skipWithout } from "../../support/requirements.ts";

const describeWithBrowser = skipWithout("chromium", "render context reuse with a real Chromium") ? describe.skip : describe;
const SLOW = 90_000;

interface Traces {
  global: string;
  name: string;
  local: string;
  session: string;
  cookie: string;
  databases: string;
  caches: string;
  history: number;
}

function tracesOf(html: string): Traces {
  const match = /TRACES (\{.*?\}) END/.exec(html);
  if (!match) throw new Error(`no traces printed: ${html.slice(0, 300)}`);
  return JSON.parse(match[1]!.replaceAll("&quot;", '"')) as Traces;
}

function seenOf(html: string): Record<string, unknown> {
  const match = /SEEN (\{.*?\}) END/.exec(html);
  if (!match) throw new Error(`nothing seen: ${html.slice(0, 300)}`);
  return JSON.parse(match[1]!.replaceAll("&quot;", '"')) as Record<string, unknown>;
}

describeWithBrowser("web/renderer context reuse", () => {
  let site: RenderSite;
  let h: Harness;
  beforeAll(async () => {
    site = await startRenderSite();
    // One page: every render runs in the same context while it is reused.
    h = createHarness({ pages: 1, totalTimeoutMs: 15_000, navigationTimeoutMs: 8_000 });
  });
  afterAll(async () => {
    await h.renderer.close();
    await site.stop();
  }, SLOW);

  const render = (path: string) => h.renderer.render(site.url(path), AbortSignal.timeout(30_000));

  it("shows the next caller in the same context none of the traces the previous caller's page left", async () => {
    const written = tracesOf((await render("/traces.html?write")).html);
    // The page sees its own traces: the reader works.
    expect(written).toEqual({
      global: "global-A",
      name: "name-A",
      local: "local-A",
      session: "session-A",
      cookie: "k=cookie-A",
      databases: "db-A",
      caches: "cache-A",
      // A new tab's first entry, the page, and the page's pushState.
      history: 3,
    });
    const opened = h.renderer.stats().contextsOpened;
    const seen = tracesOf((await render("/traces.html")).html);
    expect(h.renderer.stats().contextsOpened).toBe(opened);
    expect(seen).toEqual({ global: "", name: "", local: "", session: "", cookie: "", databases: "", caches: "", history: 2 });
    // The cacheable script was fetched again: the HTTP cache did not carry it over.
    expect(site.hits("/cached.js")).toBe(2);
  }, SLOW);

  it("gives the next caller none of the session storage, window.name or history a page kept writing until it was gone", async () => {
    await render("/leave-traces.html");
    const opened = h.renderer.stats().contextsOpened;
    const seen = seenOf((await render("/look-back.html?stay")).html);
    expect(h.renderer.stats().contextsOpened).toBe(opened);
    // about:blank and this page: nothing of the previous caller's two entries.
    expect(seen).toMatchObject({ history: 2, name: "", session: "{}" });
  }, SLOW);

  it("never takes the next caller back to the previous caller's page (history, back-forward cache)", async () => {
    await render("/leave-traces.html");
    const loads = site.hits("/leave-traces.html");
    const opened = h.renderer.stats().contextsOpened;
    const result = await render("/look-back.html");
    expect(h.renderer.stats().contextsOpened).toBe(opened);
    expect(result.finalUrl).not.toContain("leave-traces");
    expect(result.html).not.toContain("Leaving traces");
    expect(site.hits("/leave-traces.html")).toBe(loads);
  }, SLOW);

  it("lays out the next caller's page in the default viewport after a screenshot caller set its own and hid elements", async () => {
    const shot = await h.renderer.screenshot(
      site.url("/look-back.html?stay"),
      { viewport: { width: 400, height: 300, deviceScaleFactor: 2 }, fullPage: false, format: "png", hide: ["#probe"] },
      AbortSignal.timeout(30_000),
    );
    expect(shot.width).toBe(800);
    const opened = h.renderer.stats().contextsOpened;
    const seen = seenOf((await render("/look-back.html?stay")).html);
    expect(h.renderer.stats().contextsOpened).toBe(opened);
    expect(seen).toMatchObject({ width: 1280, ratio: 1, probe: "block", sheets: 0 });
  }, SLOW);

  it("does not send the next caller a cookie the server set for the previous one (HttpOnly)", async () => {
    const first = await render("/set-cookie.html");
    expect(first.html).toContain("JAR [server=cookie-A]");
    const opened = h.renderer.stats().contextsOpened;
    const next = await render("/echo-cookie.html");
    expect(h.renderer.stats().contextsOpened).toBe(opened);
    expect(next.html).toContain("JAR []");
  }, SLOW);

  it("reuses a context for the next caller, and closes one whose page framed another origin instead", async () => {
    await render("/script-built.html");
    const before = h.renderer.stats().contextsOpened;
    await render("/script-built.html");
    expect(h.renderer.stats().contextsOpened).toBe(before);
    const other = await startRenderSite();
    try {
      await render(`/framed.html?src=${encodeURIComponent(other.url("/traces.html?write"))}`);
      await render("/script-built.html");
      expect(h.renderer.stats().contextsOpened).toBe(before + 1);
    } finally {
      await other.stop();
    }
  }, SLOW);

  it("closes the context of a failed render instead of reusing it, and the next render works", async () => {
    const before = h.renderer.stats().contextsOpened;
    const error = await rejection(h.renderer.render(site.url("/loop.html"), AbortSignal.timeout(30_000)));
    expect(error.code).toBe("RENDER_TIMEOUT");
    expect(error.status).toBe(504);
    const next = await render("/script-built.html");
    expect(next.html).toContain("Built by script");
    expect(h.renderer.stats().contextsOpened).toBe(before + 1);
  }, SLOW);

  it("answers 502 RENDER_FAILED when the page's renderer process is killed mid-render, and the next render works", async () => {
    await render("/script-built.html");
    const browserPid = h.renderer.stats().browserPid!;
    const before = h.renderer.stats().contextsOpened;
    const pending = rejection(h.renderer.render(site.url("/hang"), AbortSignal.timeout(30_000)));
    expect(await eventually(() => site.hits("/hang") > 0, 15_000)).toBe(true);
    const renderers = listProcessTree(browserPid).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer");
      } catch {
        return false;
      }
    });
    expect(renderers.length).toBeGreaterThan(0);
    for (const pid of renderers) process.kill(pid, "SIGKILL");
    const error = await pending;
    expect(error.code).toBe("RENDER_FAILED");
    expect(error.status).toBe(502);
    const next = await render("/script-built.html");
    expect(next.html).toContain("Built by script");
    expect(h.renderer.stats().browserPid).toBe(browserPid);
    expect(h.renderer.stats().contextsOpened).toBeGreaterThan(before);
  }, SLOW);
});
