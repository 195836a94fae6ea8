/**
 * Hostile pages through render:true (text), in warm contexts: each ends within the render deadline, with the
 * page's text or a stated error (never a hang or a 500), and the next render of a plain page works in the same
 * renderer. The screenshot path's twins are in screenshot.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { createHarness, type Harness } from "./render-harness.ts";
import { type RenderSite, startRenderSite } from "./render-site.ts";
import { skipWithout } from "../../support/requirements.ts";

const describeWithBrowser = skipWithout("chromium", "hostile pages rendered by a real Chromium") ? describe.skip : describe;
const TOTAL_MS = 8_000;
/** Past the deadline: closing a stuck context and answering, on a loaded machine. */
const SLACK_MS = 6_000;

/** Page → what a render of it may end with: its text, or one of these codes. */
const HOSTILE: [path: string, text: string, codes: string[]][] = [
  ["/infinite-scroll.html", "Infinite scroll", []],
  ["/big-dom.html", "A hundred thousand elements", ["SOURCE_TOO_LARGE", "RENDER_TIMEOUT"]],
  ["/never-loads.html", "Never loads", []],
  ["/huge-image.html", "Huge image", []],
  ["/alert-loop.html", "Alert loop", ["RENDER_TIMEOUT"]],
  ["/popup-storm.html", "Popup storm", []],
  ["/loop.html", "", ["RENDER_TIMEOUT"]],
];

describeWithBrowser("web/renderer and hostile pages", () => {
  let site: RenderSite;
  let h: Harness;
  beforeAll(async () => {
    site = await startRenderSite();
    h = createHarness({ pages: 2, totalTimeoutMs: TOTAL_MS, navigationTimeoutMs: 5_000, settleTimeoutMs: 1_500 });
    await h.renderer.warm();
  });
  afterAll(async () => {
    await h.renderer.close();
    await site.stop();
  }, 60_000);

  for (const [path, text, codes] of HOSTILE) {
    it(`ends ${path} within the deadline with its text or ${codes.join("/") || "no error"}, and the next render works`, async () => {
      const started = performance.now();
      const outcome = await h.renderer.render(site.url(path), AbortSignal.timeout(60_000)).then(
        (page) => ({ html: page.html, code: undefined }),
        (error: unknown) => {
          if (!(error instanceof ApiError)) throw error;
          return { html: "", code: error.code };
        },
      );
      expect(performance.now() - started).toBeLessThan(TOTAL_MS + SLACK_MS);
      if (outcome.code === undefined) expect(outcome.html).toContain(text);
      else expect(codes).toContain(outcome.code);
      const next = await h.renderer.render(site.url("/script-built.html"), AbortSignal.timeout(30_000));
      expect(next.html).toContain("Built by script");
      // No popup of a storm, nor a stuck page, is left open beyond the pool.
      expect(h.renderer.stats().openContexts).toBeLessThanOrEqual(2);
    }, 60_000);
  }
});
