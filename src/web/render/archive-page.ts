/**
 * @module web/render/archive-page — one archive capture in one fresh tab of a cleared context (render-context.ts): every request
 * the page makes recorded as it loads (archive-recorder.ts) under the same request guard as a render,
 * images and fonts let through as for a screenshot, then an optional PNG of the viewport. The page's
 * own document must be kept, or the capture fails with 422 ARCHIVE_TOO_LARGE.
 */
import { ApiError } from "../../errors.ts";
import { startArchiveRecorder } from "./archive-recorder.ts";
import type { ArchiveSpec, CapturedArchive } from "./contract.ts";
import { readImageSize } from "./image-size.ts";
import { loadInContext, type PageRenderOptions, type RenderProgress, SCREENSHOT_BLOCKED_RESOURCE_TYPES, UNSETTLED_WARNING } from "./render-page.ts";
import type { RenderTab } from "./render-context.ts";

/** The viewport an archived page is laid out in (and its screenshot's size). */
export const ARCHIVE_VIEWPORT = { width: 1280, height: 800, deviceScaleFactor: 1 };

/** Archives `url` in the context's page. The caller owns the deadline and closes the context. */
export async function archiveInContext(
  context: RenderTab,
  url: string,
  spec: ArchiveSpec,
  options: PageRenderOptions,
  signal: AbortSignal,
  progress: RenderProgress = {},
): Promise<CapturedArchive> {
  const { page } = context;
  await page.setViewport(ARCHIVE_VIEWPORT);
  const recorder = await startArchiveRecorder(page, spec.limits);
  try {
    const loaded = await loadInContext(context, url, { ...options, blockedResourceTypes: SCREENSHOT_BLOCKED_RESOURCE_TYPES }, signal, progress);
    const step = <T>(work: Promise<T>) => Promise.race([work, loaded.crashed]);
    if (loaded.status < 200 || loaded.status >= 300) {
      throw new ApiError("SOURCE_ERROR_STATUS", { message: `The source answered with HTTP ${loaded.status}.`, details: { source_status: loaded.status } });
    }
    let screenshot: CapturedArchive["screenshot"];
    if (spec.screenshot) {
      const cdp = await page.createCDPSession();
      const { width, height } = ARCHIVE_VIEWPORT;
      const shot = await step(cdp.send("Page.captureScreenshot", { format: "png", fromSurface: true, clip: { x: 0, y: 0, width, height, scale: 1 }, captureBeyondViewport: false }));
      const image = new Uint8Array(Buffer.from(shot.data, "base64"));
      const size = readImageSize(image);
      if (size) screenshot = { image, ...size };
    }
    const title = await step(page.title());
    const finalUrl = page.url();
    loaded.assertNoLateRefusal();
    const { exchanges, leftOut } = await step(recorder.finish());
    if (!exchanges.some((exchange) => exchange.resourceType === "Document" && exchange.url === finalUrl)) {
      const reason = leftOut.find((item) => item.url === finalUrl)?.reason ?? "it was not recorded";
      throw new ApiError("ARCHIVE_TOO_LARGE", { message: `The page's own document could not be kept: ${reason}. Raise max_bytes (or archive a smaller page).` });
    }
    const warnings = loaded.settled ? [] : [UNSETTLED_WARNING];
    return { exchanges, leftOut, ...(screenshot ? { screenshot } : {}), title, finalUrl, status: loaded.status, warnings };
  } finally {
    recorder.stop();
  }
}
