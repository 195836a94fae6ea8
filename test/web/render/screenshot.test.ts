/**
 * web/screenshot's capture with the real Chromium (issue 43): sizes and formats, full pages cut at the
 * height cap, one element, hidden elements, waits, the byte cap, the request guard on every image the
 * page loads, robots.txt, and hostile pages that must end within the render deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { ScreenshotSpec } from "../../../src/web/render/contract.ts";
import { readImageSize } from "../../../src/web/render/image-size.ts";
import { UNSETTLED_WARNING } from "../../../src/web/render/render-page.ts";
import { createHarness, createStandInRenderer, type Harness, rejection } from "./render-harness.ts";
import { type RenderSite, startRenderSite } from "./render-site.ts";
import { skipWithout } from "../../support/requirements.ts";

const describeWithBrowser = skipWithout("chromium", "web/screenshot's capture in a real Chromium") ? describe.skip : describe;
const SLOW = 60_000;

const spec = (overrides: Partial<ScreenshotSpec> = {}): ScreenshotSpec => ({
  viewport: { width: 400, height: 300, deviceScaleFactor: 1 },
  fullPage: false,
  format: "png",
  ...overrides,
});
const timeout = () => AbortSignal.timeout(45_000);
/** Roomier than the render tests' deadlines: a full-page capture takes seconds on a shared machine. Every renderer is warmed first. */
const DEADLINES = { navigationTimeoutMs: 10_000, totalTimeoutMs: 20_000, settleTimeoutMs: 1_500 };

describeWithBrowser("web/screenshot capture with Chromium", () => {
  let site: RenderSite;
  let h: Harness;
  beforeAll(async () => {
    site = await startRenderSite();
    // #late appears 300 ms after the page loads; the wait gives it 4 s so that a loaded machine still sees it.
    h = createHarness({ ...DEADLINES, screenshotLimits: { maxWaitMs: 4_000 } });
    await h.renderer.warm();
  }, SLOW);
  afterAll(async () => {
    await h.renderer.close();
    await site.stop();
  }, SLOW);

  it("captures the viewport at the device scale factor, in each format, with the page's images loaded", async () => {
    const before = site.hits("/image/red.png");
    const png = await h.engine.screenshot(site.url("/shot.html"), spec({ viewport: { width: 400, height: 300, deviceScaleFactor: 2 } }), timeout());
    expect({ width: png.width, height: png.height }).toEqual({ width: 800, height: 600 });
    expect(readImageSize(png.image)).toEqual({ width: 800, height: 600 });
    expect(String.fromCharCode(...png.image.subarray(1, 4))).toBe("PNG");
    expect(png.truncated).toBe(false);
    expect(site.hits("/image/red.png")).toBeGreaterThan(before);
    const jpeg = await h.engine.screenshot(site.url("/shot.html"), spec({ format: "jpeg", quality: 50 }), timeout());
    expect([jpeg.image[0], jpeg.image[1]]).toEqual([0xff, 0xd8]);
    expect(readImageSize(jpeg.image)).toEqual({ width: 400, height: 300 });
    const webp = await h.engine.screenshot(site.url("/shot.html"), spec({ format: "webp" }), timeout());
    expect(String.fromCharCode(...webp.image.subarray(8, 12))).toBe("WEBP");
    expect(readImageSize(webp.image)).toEqual({ width: 400, height: 300 });
  }, SLOW);

  it("captures the full page's height, and one element's box", async () => {
    const full = await h.engine.screenshot(site.url("/shot.html"), spec({ fullPage: true }), timeout());
    expect(full.width).toBe(400);
    expect(full.height).toBeGreaterThan(2400);
    expect(full.truncated).toBe(false);
    const card = await h.engine.screenshot(site.url("/shot.html"), spec({ selector: "#card" }), timeout());
    expect({ width: card.width, height: card.height }).toEqual({ width: 200, height: 120 });
  }, SLOW);

  it("cuts a page that grows for ever (infinite scroll) at the height cap, with truncated and a warning", async () => {
    const shot = await h.engine.screenshot(site.url("/infinite-scroll.html"), spec({ fullPage: true, viewport: { width: 320, height: 240, deviceScaleFactor: 2 } }), timeout());
    expect(shot.height).toBe(16_384);
    expect(shot.width).toBe(640);
    expect(shot.truncated).toBe(true);
    expect(shot.warnings).toContain("The capture was cut at 16384 pixels high.");
  }, SLOW);

  it("refuses a selector that matches nothing with 422 SELECTOR_NOT_FOUND, and one the browser cannot parse with SELECTOR_INVALID", async () => {
    const missing = await rejection(h.engine.screenshot(site.url("/shot.html"), spec({ selector: "#nowhere" }), timeout()));
    expect([missing.code, missing.status]).toEqual(["SELECTOR_NOT_FOUND", 422]);
    // css-select knows :contains; Blink does not.
    const invalid = await rejection(h.engine.screenshot(site.url("/shot.html"), spec({ selector: "p:contains(x)" }), timeout()));
    expect([invalid.code, invalid.status]).toEqual(["SELECTOR_INVALID", 400]);
  }, SLOW);

  it("hides the elements named in hide before the capture, and refuses a hide selector that is not one rule", async () => {
    const shown = await h.engine.screenshot(site.url("/shot.html"), spec({ selector: "#banner" }), timeout());
    expect(shown.height).toBe(80);
    const hidden = await rejection(h.engine.screenshot(site.url("/shot.html"), spec({ selector: "#banner", hide: ["#banner"] }), timeout()));
    expect(hidden.code).toBe("SELECTOR_NOT_FOUND");
    const smuggled = await rejection(h.engine.screenshot(site.url("/shot.html"), spec({ hide: ["#banner {} body"] }), timeout()));
    expect(smuggled.code).toBe("SELECTOR_INVALID");
  }, SLOW);

  it("waits for a wait_for selector, and refuses one that never appears with SELECTOR_NOT_FOUND", async () => {
    const late = await h.engine.screenshot(site.url("/shot.html"), spec({ waitFor: { selector: "#late" }, selector: "#late" }), timeout());
    expect(late.height).toBeGreaterThan(0);
    const never = await rejection(h.engine.screenshot(site.url("/shot.html"), spec({ waitFor: { selector: "#never" } }), timeout()));
    expect(never.code).toBe("SELECTOR_NOT_FOUND");
    expect(never.message).toContain("within 4000 ms");
  }, SLOW);

  it("refuses an image over the byte cap with 422 SCREENSHOT_TOO_LARGE, and the next capture works", async () => {
    const capped = createHarness({ ...DEADLINES, screenshotLimits: { maxImageBytes: 50_000 } });
    try {
      await capped.renderer.warm();
      const error = await rejection(capped.engine.screenshot(site.url("/noise.html"), spec(), timeout()));
      expect([error.code, error.status]).toEqual(["SCREENSHOT_TOO_LARGE", 422]);
      const next = await capped.engine.screenshot(site.url("/shot.html"), spec({ selector: "#card" }), timeout());
      expect(next.width).toBe(200);
    } finally {
      await capped.renderer.close();
    }
  }, SLOW);

  it("checks robots.txt for the page before capturing it", async () => {
    const error = await rejection(h.engine.screenshot(site.url("/private.html"), spec(), timeout()));
    expect(error.code).toBe("ROBOTS_DISALLOWED");
    expect(site.hits("/private")).toBe(0);
  }, SLOW);

  it("captures a page that never finishes loading at the settle cap, with a warning", async () => {
    const shot = await h.engine.screenshot(site.url("/never-loads.html"), spec(), timeout());
    expect(shot.warnings).toContain(UNSETTLED_WARNING);
    expect(shot.width).toBe(400);
  }, SLOW);

  it("ends an alert loop at the render deadline with 504 RENDER_TIMEOUT, and the next capture works", async () => {
    const error = await rejection(h.engine.screenshot(site.url("/alert-loop.html"), spec(), timeout()));
    expect([error.code, error.status]).toEqual(["RENDER_TIMEOUT", 504]);
    const next = await h.engine.screenshot(site.url("/shot.html"), spec({ selector: "#card" }), timeout());
    expect(next.width).toBe(200);
  }, SLOW);

  it("opens no popup of a window.open storm, and captures the page", async () => {
    const shot = await h.engine.screenshot(site.url("/popup-storm.html"), spec(), timeout());
    expect(shot.width).toBe(400);
    expect(site.hits("/popup-target.html")).toBe(0);
  }, SLOW);

  it("captures a 100,000-element page and an 8000×8000 image bounded by the height cap, or ends them with a stated error", async () => {
    for (const path of ["/big-dom.html", "/huge-image.html"]) {
      const outcome = await h.engine.screenshot(site.url(path), spec({ fullPage: true }), timeout()).then(
        (shot) => ({ width: shot.width, bounded: shot.height <= 16_384 }),
        (error: { code?: string }) => ({ code: String(error.code) }),
      );
      if ("code" in outcome) expect(["RENDER_TIMEOUT", "RENDER_FAILED", "SCREENSHOT_TOO_LARGE"]).toContain(outcome.code);
      else expect(outcome).toEqual({ width: 400, bounded: true });
    }
    const next = await h.engine.screenshot(site.url("/shot.html"), spec({ selector: "#card" }), timeout());
    expect(next.width).toBe(200);
  }, SLOW);
});

describeWithBrowser("web/screenshot and private addresses", () => {
  it("refuses every image a page aims at 127.0.0.1 or 169.254.169.254 (recorded, never connected) while its public images load", async () => {
    const site = await startRenderSite();
    const sitePort = Number(new URL(site.origin).port);
    // The page's host resolves to a public stand-in that the socket opener sends to the fixture; loopback is not allowed.
    const { renderer, attempts, decisions } = createStandInRenderer(sitePort, DEADLINES);
    try {
      await renderer.warm();
      const shot = await renderer.screenshot(`http://site.test/ssrf-shot.html?port=${sitePort}`, spec(), timeout());
      expect(shot.width).toBe(400);
      expect(site.hits("/image/red.png")).toBe(1);
      expect(site.hits("/image/secret")).toBe(0);
      const refused = decisions.filter((d) => !d.allowed).map((d) => d.target);
      expect(refused).toEqual(
        expect.arrayContaining([
          `http://127.0.0.1:${sitePort}/image/secret.png`,
          `http://127.0.0.1:${sitePort}/image/secret-css.png`,
          "http://169.254.169.254/latest/meta-data/pixel.png",
        ]),
      );
      expect(attempts.every((a) => a === "93.184.216.34:80")).toBe(true);
    } finally {
      await renderer.close();
      await site.stop();
    }
  }, SLOW);
});
