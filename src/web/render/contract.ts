/**
 * @module web/render/render/contract — what the web engine asks of a renderer and gets back. The render room holds the
 * renderer (renderer.ts: headless Chromium, one incognito context per render), the browser's discovery and launch,
 * the guard proxy every browser connection goes through, render slots and settings. It may import fetch/'s target
 * guard and nothing else of web/.
 */

export interface RenderedPage {
  html: string;
  finalUrl: string;
  /** Status of the main document, when the renderer knows it (default 200). */
  status?: number;
  /** e.g. the page had not settled by the cap: the read result carries these. */
  warnings?: string[];
}

/** Asked before each later main-frame navigation of a render (redirect hop, script navigation); throws to refuse it. */
export type NavigationCheck = (url: URL, signal: AbortSignal) => Promise<void>;

/**
 * Runs the page's JavaScript in a headless browser (whose requests the renderer
 * guards itself). `checkNavigation` carries the engine's robots.txt policy to later navigations.
 */
export type Renderer = (url: string, signal: AbortSignal, checkNavigation?: NavigationCheck) => Promise<RenderedPage>;


/** What to capture: the page's viewport, its full height (capped), or one element. Selectors are already checked. */
export interface ScreenshotSpec {
  viewport: { width: number; height: number; deviceScaleFactor: number };
  fullPage: boolean;
  selector?: string;
  format: "png" | "jpeg" | "webp";
  /** 1–100, jpeg and webp only. */
  quality?: number;
  /** Waited for after the page settled: a selector to appear, or milliseconds. */
  waitFor?: { selector: string } | { ms: number };
  /** Elements hidden before the capture (cookie banners). */
  hide?: readonly string[];
}

export interface CapturedScreenshot {
  image: Uint8Array;
  /** Pixels of the image (CSS pixels × device scale factor). */
  width: number;
  height: number;
  /** The full page (or element) was taller than the height cap and was cut there. */
  truncated: boolean;
  finalUrl: string;
  status: number;
  warnings: string[];
}

/** Captures `url` in a headless browser under the same guards as a render. */
export type Screenshotter = (url: string, spec: ScreenshotSpec, signal: AbortSignal, checkNavigation?: NavigationCheck) => Promise<CapturedScreenshot>;
