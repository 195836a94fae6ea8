/**
 * @module web/screenshot — what the web/screenshot plugin file runs: the request → the browser's capture
 * (through the engine's target guard and robots.txt) → the result, noted as evidence that signs the
 * image's hash, its size and the viewport.
 */
import { noteEvidence } from "../evidence/notes.ts";
import type { ScreenshotSpec } from "./engine.ts";
import { capturedPageFacts } from "./evidence-facts.ts";
import type { WebCapabilities } from "./endpoints.ts";
import { SCREENSHOT_RESULT_VERSION, type ScreenshotRequest, type ScreenshotResult } from "./screenshot-schema.ts";
import { sha256Hex } from "./text/text-output.ts";

function specOf(input: ScreenshotRequest): ScreenshotSpec {
  const wait = input.wait_for;
  return {
    viewport: { width: input.viewport?.width ?? 1280, height: input.viewport?.height ?? 800, deviceScaleFactor: input.device_scale_factor ?? 1 },
    fullPage: input.full_page === true,
    format: input.format ?? "png",
    ...(input.selector !== undefined ? { selector: input.selector } : {}),
    ...(input.quality !== undefined ? { quality: input.quality } : {}),
    ...(wait !== undefined ? { waitFor: typeof wait === "string" ? { selector: wait } : { ms: wait } } : {}),
    ...(input.hide?.length ? { hide: input.hide } : {}),
  };
}

export async function screenshotEndpoint(input: ScreenshotRequest, { web, signal }: WebCapabilities): Promise<ScreenshotResult> {
  const spec = specOf(input);
  const shot = await web.screenshot(input.url, spec, signal);
  const viewport = { width: spec.viewport.width, height: spec.viewport.height, device_scale_factor: spec.viewport.deviceScaleFactor, full_page: spec.fullPage };
  const result: ScreenshotResult = {
    ok: true,
    version: SCREENSHOT_RESULT_VERSION,
    url: shot.url,
    final_url: shot.finalUrl,
    fetched_at: shot.fetchedAt,
    source_status: shot.status,
    width: shot.width,
    height: shot.height,
    format: spec.format,
    viewport,
    ...(spec.selector !== undefined ? { selector: spec.selector } : {}),
    image_base64: Buffer.from(shot.image).toString("base64"),
    image_sha256: sha256Hex(shot.image),
    truncated: shot.truncated,
    warnings: shot.warnings,
    content_is_untrusted: true,
  };
  return noteEvidence(result, {
    ...capturedPageFacts(result),
    content_type: "text/html",
    format: "screenshot",
    image_sha256: result.image_sha256,
    image: { content_type: `image/${spec.format}`, width: result.width, height: result.height },
    viewport,
    ...(spec.selector !== undefined ? { selector: spec.selector } : {}),
    version: SCREENSHOT_RESULT_VERSION,
  });
}
