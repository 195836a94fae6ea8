/**
 * The renderer with the real Chromium (issue 7). Skipped, with one line saying so, only when no browser is found;
 * CI installs Debian's chromium, so they run there.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { LANE_IDLE, NOT_A_RENDER, NOT_REQUESTED, type ProxyDecision } from "../../../src/web/render/proxy-guard.ts";
import { UNSETTLED_WARNING } from "../../../src/web/render/render-page.ts";
import { createRenderer } from "../../../src/web/render/renderer.ts";
import { listProcessTree } from "../../../scripts/bench/render-rss.ts";
import { exchange } from "./raw-proxy.ts";
import { createRecordingSockets } from "./recording-socket.ts";
import { createHarness, eventually, type Harness, rejection, USER_AGENT } from "./render-harness.ts";
import { DATA_SENTENCE, type RenderSite, startRenderSite } from "./render-site.ts";
import { skipWithout } from "../../support/requirements.ts";

const describeWithBrowser = skipWithout("chromium", "the renderer with a real Chromium") ? describe.skip : describe;
const SLOW = 60_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

describeWithBrowser("web/renderer with Chromium", () => {
  let site: RenderSite;
  let h: Harness;
  beforeAll(async () => {
    site = await startRenderSite();
    h = createHarness({ pages: 2 });
  });
  // Closing waits for the browser to exit (up to seconds on a loaded machine).
  afterAll(async () => {
    await h.renderer.close();
    await site.stop();
  }, SLOW);

  it("runs the page's script: text built by JavaScript is present with render and absent without", async () => {
    const input = { url: site.url("/script-built.html"), format: "text" as const, maxChars: 20_000 };
    const rendered = await h.engine.read({ ...input, render: true }, AbortSignal.timeout(20_000));
    expect(rendered.javascript_rendered).toBe(true);
    expect(rendered.text).toContain("Built by script");
    expect(rendered.text).toContain(DATA_SENTENCE);
    expect(rendered.headings).toContainEqual(expect.objectContaining({ text: "Built by script" }));
    const plain = await h.engine.read(input, AbortSignal.timeout(20_000));
    expect(plain.javascript_rendered).toBe(false);
    expect(plain.text).not.toContain("Built by script");
    expect(plain.text).not.toContain(DATA_SENTENCE);
  }, SLOW);

  it("checks robots.txt for the page before rendering it", async () => {
    const error = await rejection(h.engine.read({ url: site.url("/private.html"), format: "text", maxChars: 20_000, render: true }, AbortSignal.timeout(20_000)));
    expect(error.code).toBe("ROBOTS_DISALLOWED");
    expect(site.hits("/private")).toBe(0);
  }, SLOW);

  it("checks robots.txt on a later main-frame navigation: a script navigation and a redirect into a disallowed path are refused, never requested", async () => {
    for (const path of ["/to-private.html", "/redirect-to-private"]) {
      const error = await rejection(h.engine.read({ url: site.url(path), format: "text", maxChars: 20_000, render: true }, AbortSignal.timeout(20_000)));
      expect(error.code).toBe("ROBOTS_DISALLOWED");
    }
    expect(site.hits("/to-private.html")).toBe(1);
    expect(site.hits("/redirect-to-private")).toBe(1);
    expect(site.hits("/private")).toBe(0);
  }, SLOW);

  it("never requests images, fonts, media, text tracks or the favicon", async () => {
    const before = site.requests.length;
    const page = await h.renderer.render(site.url("/assets.html"), AbortSignal.timeout(20_000));
    expect(page.html).toContain("Script ran to the end.");
    const seen = site.requests.slice(before);
    expect(seen).toContain("/assets.html");
    expect(seen.filter((path) => path.startsWith("/asset/") || path.startsWith("/favicon"))).toEqual([]);
  }, SLOW);

  it("lets a page's script reach no private or link-local address (fetch, XHR, iframe, image, WebSocket, EventSource, beacon)", async () => {
    const page = await h.renderer.render(site.url("/probe.html"), AbortSignal.timeout(20_000));
    const log = /<p id="log">([^<]*)<\/p>/.exec(page.html)?.[1] ?? "";
    expect(log).toContain("xhr refused");
    expect(log).not.toContain("reached");
    // Every socket the proxy opened went to the loopback fixture; a removed guard would show 10.x/169.254.x/192.168.x here.
    expect(h.sockets.attempts.length).toBeGreaterThan(0);
    for (const attempt of h.sockets.attempts) expect(attempt).toStartWith("127.0.0.1:");
    // The names reached the guard (Chromium did not resolve or connect by itself) and were refused there.
    expect(h.names.lookups).toEqual(expect.arrayContaining(["intranet.test", "metadata.test", "router.test"]));
    const refused = h.decisions.filter((d) => !d.allowed).map((d) => d.target);
    expect(refused).toEqual(
      expect.arrayContaining([
        "http://intranet.test/fetch",
        "intranet.test:443",
        "http://10.20.30.41/fetch-ip",
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.test/xhr",
        "intranet.test:80",
        "metadata.test:443",
        "http://router.test/events",
      ]),
    );
    expect(h.decisions.filter((d) => d.allowed).every((d) => d.address?.startsWith("127."))).toBe(true);
  }, SLOW);

  it("fails a script navigation to a link-local address instead of following it", async () => {
    const error = await rejection(h.renderer.render(site.url("/js-redirect.html"), AbortSignal.timeout(20_000)));
    expect(error.code).toBe("TARGET_NOT_PUBLIC");
    for (const attempt of h.sockets.attempts) expect(attempt).toStartWith("127.0.0.1:");
  }, SLOW);

  it("dismisses dialogs and refuses popups, downloads, permissions and service workers", async () => {
    const page = await h.renderer.render(site.url("/hostile.html"), AbortSignal.timeout(20_000));
    expect(page.html).toContain("confirm returned false");
    expect(page.html).toContain("prompt returned null");
    expect(page.html).toContain("popup blocked");
    expect(page.html).toContain("service worker refused");
    expect(page.html).toContain("geolocation denied");
    expect(page.html).not.toContain("notification granted");
    expect(site.hits("/popup-target.html")).toBe(0);
    expect(site.hits("/sw.js")).toBe(0);
  }, SLOW);

  it("extracts a page whose network never goes quiet, with a warning that the render may be incomplete", async () => {
    const page = await h.renderer.render(site.url("/unsettled.html"), AbortSignal.timeout(20_000));
    expect(page.html).toContain("Never quiet");
    expect(page.warnings).toEqual([UNSETTLED_WARNING]);
    const quiet = await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
    expect(quiet.warnings).toEqual([]);
  }, SLOW);

  it("times an endless loop out with 504 RENDER_TIMEOUT, and the next render works", async () => {
    const error = await rejection(h.renderer.render(site.url("/loop.html"), AbortSignal.timeout(30_000)));
    expect(error.code).toBe("RENDER_TIMEOUT");
    expect(error.status).toBe(504);
    const next = await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
    expect(next.html).toContain("Built by script");
  }, SLOW);

  it("completes 10 concurrent renders with at most the pool's 2 pages at once", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => h.renderer.render(site.url(`/slow.html?page-${i}`), AbortSignal.timeout(30_000))),
    );
    results.forEach((result, i) => expect(result.html).toContain(`Slow page built for page-${i}.`));
    expect(site.peakSlow()).toBeGreaterThan(0);
    expect(site.peakSlow()).toBeLessThanOrEqual(2);
  }, SLOW);

  it("leaves no context behind after renders (only the ready ones, at most the pool's 2 pages)", async () => {
    await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
    expect(await eventually(() => {
      const stats = h.renderer.stats();
      return stats.active === 0 && stats.openContexts === stats.spareContexts;
    })).toBe(true);
    expect(h.renderer.stats().spareContexts).toBeLessThanOrEqual(2);
  }, SLOW);
});

describeWithBrowser("web/renderer spare contexts", () => {
  /** A renderer of its own and a site whose /slow.html answers after `slowMs`, both closed after `body`. */
  async function withSlowSite(slowMs: number, body: (h: Harness, site: RenderSite) => Promise<void>): Promise<void> {
    const site = await startRenderSite({ slowMs });
    const h = createHarness();
    try {
      await body(h, site);
    } finally {
      await h.renderer.close();
      await site.stop();
    }
  }

  it("opens the next caller's spare as soon as a finished render's context has closed, while another render runs", () =>
    withSlowSite(2_500, async (h, site) => {
      await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
      // Started while the first render's context is still closing: it takes the spare opened during the first render.
      const slow = h.renderer.render(site.url("/slow.html?second"), AbortSignal.timeout(20_000));
      // Once the first context has closed, its page is free again: a spare must open for the next caller
      // while the slow render still waits for its source.
      const spareDuringSlow = await eventually(() => {
        const stats = h.renderer.stats();
        return stats.active === 1 && stats.spareContexts === 1;
      }, 2_000);
      expect(spareDuringSlow).toBe(true);
      expect((await slow).html).toContain("Slow page built for second.");
    }), SLOW);

  it("settles warm() once a context is ready, and the first render runs in that context", async () => {
    const lanes: { id: number; port: number }[] = [];
    const h = createHarness({ onProxyLane: (lane) => lanes.push(lane) });
    const site = await startRenderSite();
    try {
      const warming = h.renderer.warm();
      expect(h.renderer.warm()).toBe(warming);
      await warming;
      // Not only launched: the spare context is open (its keeper and its first caller's tab too), and it is the only one.
      expect(h.renderer.stats()).toMatchObject({ launches: 1, openContexts: 1, spareContexts: 1, contextsOpened: 1 });
      expect(lanes).toHaveLength(1);
      const page = await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
      expect(page.html).toContain(DATA_SENTENCE);
      const admitted = h.decisions.filter((d) => d.allowed);
      expect(admitted.length).toBeGreaterThan(0);
      // The keeper's warm-up page of our own sent nothing: every request admitted is the render's, on the warmed context's lane.
      expect(admitted.every((d) => d.lane === lanes[0]!.id && d.target.startsWith(site.origin))).toBe(true);
    } finally {
      await h.renderer.close();
      await site.stop();
    }
  }, SLOW);

  it("opens the next caller's spare only once the render's page is quiet, not while it still loads", () =>
    withSlowSite(1_500, async (h, site) => {
      await h.renderer.warm();
      expect(await eventually(() => {
        const stats = h.renderer.stats();
        return stats.active === 0 && stats.spareContexts === 1 && stats.openContexts === 1;
      }, 15_000)).toBe(true);
      // Takes the spare; its page waits 1.5 s for its document. Opening the next context now would cost the
      // browser a renderer process's start in the middle of this render's navigation.
      const slow = h.renderer.render(site.url("/slow.html?loading"), AbortSignal.timeout(20_000));
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(h.renderer.stats()).toMatchObject({ active: 1, spareContexts: 0, contextsOpened: 1 });
      expect((await slow).html).toContain("Slow page built for loading.");
      // Once the page went quiet the spare opened, before the render's own context was back.
      expect(h.renderer.stats().contextsOpened).toBe(2);
      expect(h.renderer.stats().spareContexts).toBeGreaterThanOrEqual(1);
    }), SLOW);
});

describeWithBrowser("web/renderer browser lifecycle", () => {
  let site: RenderSite;
  beforeAll(async () => {
    site = await startRenderSite();
  });
  afterAll(async () => {
    await site.stop();
  });

  it("replaces a browser killed mid-render: that render fails with RENDER_FAILED, the next one works", async () => {
    const h = createHarness();
    try {
      await h.renderer.warm();
      const firstPid = h.renderer.stats().browserPid;
      expect(firstPid).toBeNumber();
      const pending = rejection(h.renderer.render(site.url("/hang"), AbortSignal.timeout(30_000)));
      await eventually(() => site.hits("/hang") > 0);
      process.kill(-firstPid!, "SIGKILL");
      const error = await pending;
      expect(error.code).toBe("RENDER_FAILED");
      const next = await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
      expect(next.html).toContain("Built by script");
      expect(h.renderer.stats().browserPid).not.toBe(firstPid);
      expect(h.renderer.stats().launches).toBe(2);
    } finally {
      await h.renderer.close();
    }
  }, SLOW);

  it("restarts the browser after N renders", async () => {
    const h = createHarness({ restartAfterRenders: 2 });
    try {
      for (let i = 0; i < 2; i++) await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
      const firstPid = h.renderer.stats().browserPid!;
      await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
      expect(h.renderer.stats().launches).toBe(2);
      expect(h.renderer.stats().browserPid).not.toBe(firstPid);
      expect(await eventually(() => !isAlive(firstPid))).toBe(true);
    } finally {
      await h.renderer.close();
    }
  }, SLOW);

  it("leaves no browser process or profile behind after close()", async () => {
    const h = createHarness();
    await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
    const pid = h.renderer.stats().browserPid!;
    const tree = listProcessTree(pid);
    expect(tree.length).toBeGreaterThan(1);
    const profile = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").find((arg) => arg.startsWith("--user-data-dir="))!.slice("--user-data-dir=".length);
    expect(existsSync(profile)).toBe(true);
    await h.renderer.close();
    expect(await eventually(() => tree.every((p) => !isAlive(p)))).toBe(true);
    expect(existsSync(profile)).toBe(false);
    const error = await rejection(h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(5_000)));
    expect(error.code).toBe("RENDER_UNAVAILABLE");
  }, SLOW);
});

describeWithBrowser("web/renderer and the browser's own traffic", () => {
  it("admits nothing through the proxy from a bare browser start; a render's requests arrive on its own lane", async () => {
    const sockets = createRecordingSockets();
    const decisions: ProxyDecision[] = [];
    // Every name resolves to a public stand-in, so vetting alone would admit Chromium's update, sign-in
    // or time queries: only the lane guard refuses them. The recording connector never dials off loopback.
    const renderer = createRenderer({
      userAgent: USER_AGENT,
      policy: { allowLoopbackTargets: true, resolver: async () => ["93.184.216.34"] },
      proxyConnect: sockets.connect,
      onProxyDecision: (d) => decisions.push(d),
    });
    const site = await startRenderSite();
    try {
      await renderer.warm();
      expect(renderer.stats().browserPid).toBeNumber();
      // Chromium's background requests start within a second or two of launch (Chromium 150's AI Mode check and
      // search preconnect from the spare context came 0.3-3 s after it opened, its GCM check-in at ~6 s).
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      expect(decisions.filter((d) => d.allowed)).toEqual([]);
      // Refused without vetting: on the base port, or on the spare context's lane, which no render holds yet.
      expect(decisions.every((d) => (d.reason === NOT_A_RENDER && d.lane === undefined) || (d.reason === LANE_IDLE && d.lane !== undefined))).toBe(true);
      expect(sockets.attempts).toEqual([]);

      const page = await renderer.render(site.url("/script-built.html"), AbortSignal.timeout(20_000));
      expect(page.html).toContain(DATA_SENTENCE);
      const admitted = decisions.filter((d) => d.allowed);
      expect(admitted.map((d) => d.target)).toEqual(expect.arrayContaining([site.url("/script-built.html"), site.url("/data.json")]));
      expect(admitted.every((d) => d.lane !== undefined && d.target.startsWith(site.origin))).toBe(true);
      expect(sockets.attempts.every((attempt) => attempt.startsWith("127.0.0.1:"))).toBe(true);
    } finally {
      await renderer.close();
      await site.stop();
    }
  }, SLOW);

  it("a context's lane admits nothing before its render, only what its page asked for during it, and nothing after", async () => {
    const lanes: { id: number; port: number }[] = [];
    const h = createHarness({ onProxyLane: (lane) => lanes.push(lane) });
    const site = await startRenderSite({ slowMs: 3_000 });
    const port = new URL(site.origin).port;
    const get = (target: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const connect = (authority: string) => `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;
    try {
      await h.renderer.warm();
      expect(await eventually(() => h.renderer.stats().spareContexts === 1 && lanes.length === 1, 15_000)).toBe(true);
      const spare = lanes[0]!;
      // The spare context's lane, before any render: what Chromium 150 sent there on its own, and the site itself.
      for (const request of [connect("www.google.com:443"), get("http://chromium-service.invalid/async/folae?async=_fmt:pb"), get(site.url("/data.json"))]) {
        expect(await exchange(spare.port, request)).toStartWith("HTTP/1.1 403");
        expect(h.decisions.at(-1)).toMatchObject({ allowed: false, reason: LANE_IDLE, lane: spare.id });
      }
      // The render takes the spare; its document answers after 3 s, while the requests below arrive.
      const rendering = h.renderer.render(site.url("/slow.html?lane"), AbortSignal.timeout(20_000));
      expect(await eventually(() => site.hits("/slow.html?lane") === 1, 15_000)).toBe(true);
      expect(await exchange(spare.port, connect("public.test:443"))).toStartWith("HTTP/1.1 403");
      expect(h.decisions.at(-1)).toMatchObject({ allowed: false, reason: NOT_REQUESTED, lane: spare.id });
      // The page's own host and port are admitted (still vetted).
      expect(await exchange(spare.port, get(`http://127.0.0.1:${port}/data.json`))).toStartWith("HTTP/1.1 200");
      expect((await rendering).html).toContain("Slow page built for lane.");
      // Once the render is over its lane admits nothing (and soon stops listening).
      const after = await exchange(spare.port, get(`http://127.0.0.1:${port}/data.json`)).catch(() => "closed");
      expect(after === "closed" || after.startsWith("HTTP/1.1 403")).toBe(true);
      expect(h.names.lookups).not.toContain("public.test");
      expect(h.names.lookups).not.toContain("www.google.com");
      for (const attempt of h.sockets.attempts) expect(attempt).toBe(`127.0.0.1:${port}`);
    } finally {
      await h.renderer.close();
      await site.stop();
    }
  }, SLOW);
});

describe("web/renderer without a browser", () => {
  it("refuses render with 503 RENDER_UNAVAILABLE and says why in status()", async () => {
    const renderer = createRenderer({ browserPath: "/nonexistent/chromium", userAgent: USER_AGENT, policy: { allowLoopbackTargets: false } });
    expect(renderer.status()).toMatchObject({ available: false });
    expect(renderer.status().detail).toContain("/nonexistent/chromium");
    const error = await rejection(renderer.render("https://example.com/", AbortSignal.timeout(5_000)));
    expect(error.code).toBe("RENDER_UNAVAILABLE");
    expect(error.status).toBe(503);
    await renderer.close();
  });
});
