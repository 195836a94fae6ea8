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

/** The bounds of one archive capture. */
export interface ArchiveLimits {
  /** Bytes of response bodies kept in all (the page's own document first). */
  maxBytes: number;
  /** One response body larger than this is left out. */
  maxResourceBytes: number;
  /** Responses kept at most (redirect hops included). */
  maxResources: number;
}

/** What to archive: the capture's bounds, and whether to add a screenshot of the viewport. */
export interface ArchiveSpec {
  limits: ArchiveLimits;
  screenshot: boolean;
}

/** One request and its response as the browser made and received them (the body decoded, as the page saw it). */
export interface CapturedExchange {
  url: string;
  method: string;
  requestHeaders: Record<string, string>;
  /** A POST's body, when the browser reported it. */
  requestBody?: Uint8Array;
  status: number;
  statusText: string;
  /** The HTTP version the response came over (e.g. "http/1.1", "h2"). */
  protocol: string;
  responseHeaders: Record<string, string>;
  body: Uint8Array;
  /** When the request was sent (ISO 8601). */
  sentAt: string;
  /** CDP resource type: Document, Script, Image, ... */
  resourceType: string;
}

/** A response the capture saw but did not keep, and why. */
export interface LeftOutResource {
  url: string;
  reason: string;
}

export interface CapturedArchive {
  /** In the order the responses finished (the page's document first). */
  exchanges: CapturedExchange[];
  leftOut: LeftOutResource[];
  screenshot?: { image: Uint8Array; width: number; height: number };
  title: string;
  finalUrl: string;
  status: number;
  warnings: string[];
}

/** Archives `url` as a headless browser loads it, under the same guards as a render. */
export type Archiver = (url: string, spec: ArchiveSpec, signal: AbortSignal, checkNavigation?: NavigationCheck) => Promise<CapturedArchive>;
