/**
 * @module web/render/screenshot-page — one screenshot in a fresh tab of a render context: the viewport set
 * before the page loads (images and fonts let through the same request guard), the page loaded and
 * settled as a render is, an optional wait and hidden elements, then one capture of the viewport, the
 * full page (cut at a height cap) or one element. The image's byte size is capped.
 */
import type { Page, Protocol } from "puppeteer-core";
import { ApiError } from "../../errors.ts";
import type { CapturedScreenshot, ScreenshotSpec } from "./contract.ts";
import { readImageSize } from "./image-size.ts";
import type { RenderTab } from "./render-context.ts";
import { loadInContext, type PageRenderOptions, type RenderProgress, SCREENSHOT_BLOCKED_RESOURCE_TYPES, UNSETTLED_WARNING } from "./render-page.ts";

export interface ScreenshotLimits {
  /** The image's height in pixels at most; a taller full page or element is cut there (truncated). */
  maxImageHeight: number;
  /** An image larger than this many bytes is refused with 422 SCREENSHOT_TOO_LARGE. */
  maxImageBytes: number;
  /** The longest wait for a wait_for selector to appear. */
  maxWaitMs: number;
}

interface Region {
  /** In page coordinates (CSS pixels); scale is the device scale factor. */
  clip: Protocol.Page.Viewport;
  /** The page is laid out as tall as the clip for the capture (a full page, an element below the fold). */
  beyondViewport: boolean;
  truncated: boolean;
}

/** Captures `url` in the context's page. The caller owns the deadline and closes the context. */
export async function captureInContext(
  context: RenderTab,
  url: string,
  spec: ScreenshotSpec,
  options: PageRenderOptions,
  limits: ScreenshotLimits,
  signal: AbortSignal,
  progress: RenderProgress = {},
): Promise<CapturedScreenshot> {
  const { page } = context;
  const { width, height, deviceScaleFactor } = spec.viewport;
  await page.setViewport({ width, height, deviceScaleFactor });
  const loaded = await loadInContext(context, url, { ...options, blockedResourceTypes: SCREENSHOT_BLOCKED_RESOURCE_TYPES }, signal, progress);
  const step = <T>(work: Promise<T>) => Promise.race([work, loaded.crashed]);
  if (loaded.status < 200 || loaded.status >= 300) {
    throw new ApiError("SOURCE_ERROR_STATUS", { message: `The source answered with HTTP ${loaded.status}.`, details: { source_status: loaded.status } });
  }
  if (spec.waitFor) await step(waitFor(page, spec.waitFor, limits.maxWaitMs, signal));
  if (spec.hide?.length) await step(hideElements(page, spec.hide));
  const region = await step(regionOf(page, spec, limits.maxImageHeight));
  const cdp = await page.createCDPSession();
  const shot = await step(
    cdp.send("Page.captureScreenshot", {
      format: spec.format,
      ...(spec.quality !== undefined && spec.format !== "png" ? { quality: spec.quality } : {}),
      clip: region.clip,
      captureBeyondViewport: region.beyondViewport,
      fromSurface: true,
      // A viewport is at most 1920x1600 (x2): encoded for speed its image stays far below the byte cap. Taller
      // captures keep the smaller encoding, so the cap refuses fewer of them.
      optimizeForSpeed: !region.beyondViewport,
    }),
  );
  loaded.assertNoLateRefusal();
  // base64 → bytes: checked on the encoded length first, so an oversized image is never decoded.
  if (Math.floor((shot.data.length * 3) / 4) > limits.maxImageBytes + 2) throw tooLarge(limits.maxImageBytes);
  const image = new Uint8Array(Buffer.from(shot.data, "base64"));
  if (image.length > limits.maxImageBytes) throw tooLarge(limits.maxImageBytes);
  const size = readImageSize(image);
  if (!size) throw new ApiError("RENDER_FAILED", { message: "The browser returned an image that could not be read." });
  const warnings = loaded.settled ? [] : [UNSETTLED_WARNING];
  if (region.truncated) warnings.push(`The capture was cut at ${limits.maxImageHeight} pixels high.`);
  return { image, ...size, truncated: region.truncated, finalUrl: page.url(), status: loaded.status, warnings };
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("SCREENSHOT_TOO_LARGE", {
    message: `The image is larger than ${maxBytes} bytes: capture less (no full_page, a selector, a smaller viewport) or use jpeg or webp with a lower quality.`,
  });
}

/** The browser refused a selector the server's parser accepted (css-select and Blink differ at the edges). */
function isSelectorSyntaxError(error: unknown): boolean {
  return error instanceof Error && /is not a valid selector|SyntaxError/i.test(error.message);
}

function selectorError(error: unknown, field: string, selector: string): ApiError {
  if (isSelectorSyntaxError(error)) return new ApiError("SELECTOR_INVALID", { message: `${field} ${JSON.stringify(selector)} is not a selector the browser accepts.`, cause: error });
  return error instanceof ApiError ? error : new ApiError("RENDER_FAILED", { cause: error });
}

async function waitFor(page: Page, wait: NonNullable<ScreenshotSpec["waitFor"]>, maxWaitMs: number, signal: AbortSignal): Promise<void> {
  if ("ms" in wait) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait.ms);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
    return;
  }
  try {
    await page.waitForSelector(wait.selector, { timeout: maxWaitMs, signal });
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") {
      throw new ApiError("SELECTOR_NOT_FOUND", { message: `wait_for ${JSON.stringify(wait.selector)} matched no element within ${maxWaitMs} ms.` });
    }
    throw selectorError(error, "wait_for", wait.selector);
  }
}

/**
 * Hides the elements matching `selectors` with a constructed style sheet (a page's Content-Security-Policy
 * does not apply to one). Each selector becomes one rule through insertRule, which refuses anything that is
 * not exactly one rule: a selector cannot smuggle in other CSS.
 */
async function hideElements(page: Page, selectors: readonly string[]): Promise<void> {
  const refused = await page.evaluate((list: string[]) => {
    const sheet = new CSSStyleSheet();
    for (const selector of list) {
      try {
        sheet.insertRule(`${selector} { display: none !important; }`, sheet.cssRules.length);
      } catch {
        return selector;
      }
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return null;
  }, [...selectors]);
  if (refused !== null) throw new ApiError("SELECTOR_INVALID", { message: `hide ${JSON.stringify(refused)} is not a selector the browser accepts.` });
}

/** What to capture: the viewport, the page's full height, or the element's box, each cut at the height cap. */
async function regionOf(page: Page, spec: ScreenshotSpec, maxImageHeight: number): Promise<Region> {
  const { width: viewportWidth, deviceScaleFactor } = spec.viewport;
  const maxCss = Math.floor(maxImageHeight / deviceScaleFactor);
  if (spec.selector !== undefined) {
    let box: { x: number; y: number; width: number; height: number } | null;
    try {
      box = await page.evaluate((selector: string) => {
        const element = document.querySelector(selector);
        if (!element) return null;
        const rect = element.getBoundingClientRect();
        return { x: rect.left + window.scrollX, y: rect.top + window.scrollY, width: rect.width, height: rect.height };
      }, spec.selector);
    } catch (error) {
      throw selectorError(error, "selector", spec.selector);
    }
    if (!box) throw new ApiError("SELECTOR_NOT_FOUND", { message: `selector ${JSON.stringify(spec.selector)} matched no element.` });
    const x = Math.max(0, Math.round(box.x));
    const y = Math.max(0, Math.round(box.y));
    const width = Math.min(Math.round(box.x + box.width) - x, maxCss);
    const fullHeight = Math.round(box.y + box.height) - y;
    if (width < 1 || fullHeight < 1) throw new ApiError("SELECTOR_NOT_FOUND", { message: `selector ${JSON.stringify(spec.selector)} matched an element with no visible box.` });
    return { clip: { x, y, width, height: Math.min(fullHeight, maxCss), scale: deviceScaleFactor }, beyondViewport: true, truncated: fullHeight > maxCss || Math.ceil(box.width) > maxCss };
  }
  if (!spec.fullPage) {
    // The viewport where the page is scrolled to, laid out as the caller's viewport (not stretched to the page).
    const scroll = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
    return { clip: { ...scroll, width: viewportWidth, height: spec.viewport.height, scale: deviceScaleFactor }, beyondViewport: false, truncated: false };
  }
  // Measured once: a page that grows as it is scrolled (infinite scroll) is captured as tall as it was then.
  const pageHeight = await page.evaluate(() => Math.ceil(Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0)));
  const height = Math.max(1, Math.min(pageHeight, maxCss));
  return { clip: { x: 0, y: 0, width: viewportWidth, height, scale: deviceScaleFactor }, beyondViewport: true, truncated: pageHeight > maxCss };
}
