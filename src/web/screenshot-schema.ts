/**
 * @module web/screenshot-schema — the request and result of web/screenshot, its request checks (every
 * selector is parsed before any work), its price and its example.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import type { CheckFailure } from "../plugin/define.ts";
import type { NetworkPrices } from "../plugin/price.ts";
import { ApiError } from "../errors.ts";
import { AttestationSchema } from "../evidence/attestation-schema.ts";
import { checkSelector, checkSelectorList, MAX_SELECTOR_CHARS } from "./filters/ignore-selectors.ts";
import { sha256Hex } from "./text/text-output.ts";

export const SCREENSHOT_RESULT_VERSION = "web-screenshot/1";
/** At most this many wait_for milliseconds, and this long for a wait_for selector to appear. */
export const MAX_WAIT_MS = 10_000;
export const MAX_HIDE_SELECTORS = 20;

const Selector = t.String({ minLength: 1, maxLength: MAX_SELECTOR_CHARS });
const Format = t.Union([t.Literal("png"), t.Literal("jpeg"), t.Literal("webp")]);

export const ViewportSchema = t.Object(
  {
    width: t.Integer({ minimum: 320, maximum: 1920, default: 1280, description: "CSS pixels." }),
    height: t.Integer({ minimum: 240, maximum: 1600, default: 800, description: "CSS pixels." }),
  },
  { additionalProperties: false },
);

export const ScreenshotRequestSchema = t.Object(
  {
    url: t.String({ format: "uri", maxLength: 2048, description: "Public http(s) URL, port 80 or 443." }),
    full_page: t.Optional(t.Boolean({ default: false, description: "Capture the whole page, cut at 16,384 image pixels high (then truncated: true)." })),
    viewport: t.Optional(ViewportSchema),
    device_scale_factor: t.Optional(t.Number({ minimum: 1, maximum: 2, default: 1, description: "Image pixels per CSS pixel." })),
    selector: t.Optional(t.String({ minLength: 1, maxLength: MAX_SELECTOR_CHARS, description: "CSS selector: capture only the first matching element (422 SELECTOR_NOT_FOUND when none, not charged)." })),
    format: t.Optional(t.Union([t.Literal("png"), t.Literal("jpeg"), t.Literal("webp")], { default: "png" })),
    quality: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: "jpeg and webp only (default: the browser's)." })),
    wait_for: t.Optional(
      t.Union([Selector, t.Integer({ minimum: 0, maximum: MAX_WAIT_MS })], {
        description: `After the page settled: a CSS selector to wait for (at most ${MAX_WAIT_MS / 1000} s, else 422 SELECTOR_NOT_FOUND), or milliseconds to wait (0–${MAX_WAIT_MS}).`,
      }),
    ),
    hide: t.Optional(t.Array(Selector, { maxItems: MAX_HIDE_SELECTORS, description: "CSS selectors of elements hidden before the capture (cookie banners, chat widgets)." })),
  },
  { additionalProperties: false },
);
export type ScreenshotRequest = Static<typeof ScreenshotRequestSchema>;

/** The fields a browser capture's result opens with (web/screenshot, web/archive). */
export const capturedPageFields = {
  ok: t.Literal(true),
  version: t.String(),
  url: t.String(),
  final_url: t.String(),
  fetched_at: t.String(),
  source_status: t.Integer(),
};

export const ScreenshotResultSchema = t.Object({
  ...capturedPageFields,
  width: t.Integer({ description: "Image pixels." }),
  height: t.Integer({ description: "Image pixels." }),
  format: Format,
  viewport: t.Object({ width: t.Integer(), height: t.Integer(), device_scale_factor: t.Number(), full_page: t.Boolean() }),
  selector: t.Optional(t.String()),
  image_base64: t.String(),
  image_sha256: t.String({ description: "SHA-256 of the image bytes, lowercase hex (signed)." }),
  truncated: t.Boolean({ description: "The full page or element was taller than 16,384 image pixels and was cut there." }),
  warnings: t.Array(t.String()),
  content_is_untrusted: t.Literal(true),
  attestation: t.Optional(AttestationSchema),
});
export type ScreenshotResult = Static<typeof ScreenshotResultSchema>;

/** Every selector parsed (and the quality only with a lossy format) before the call is priced. */
export function checkScreenshotRequest(input: ScreenshotRequest): CheckFailure | string | undefined {
  if (input.quality !== undefined && (input.format ?? "png") === "png") return "quality applies to jpeg and webp only";
  if (input.selector !== undefined && input.full_page) return "send selector or full_page, not both";
  try {
    if (input.selector !== undefined) checkSelector(input.selector, "selector");
    if (typeof input.wait_for === "string") checkSelector(input.wait_for, "wait_for");
    checkSelectorList(input.hide, "hide", MAX_HIDE_SELECTORS);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}

/** A viewport or element capture, and a full page (up to 16,384 pixels of image), in USD per price column. */
export function priceScreenshot(input: ScreenshotRequest): NetworkPrices {
  return input.full_page ? { base: "0.02", algorand: "0.04" } : { base: "0.01", algorand: "0.02" };
}

/** A real 320×240 PNG (one light grey), so the example's hash is the image's. */
const exampleImage =
  "iVBORw0KGgoAAAANSUhEUgAAAUAAAADwCAIAAAD+Tyo8AAACDklEQVR42u3TQQkAAAwDsfpXW6ZgHvYbBKLg4NIO8FQkAAMDBgYMDAYGDAwYGDAwGBgwMGBgMDBgYMDAgIHBwICBAQMDBgYDAwYGDAwGBgwMGBgwMBgYMDBgYMDAYGDAwICBwcCAgQEDAwYGAwMGBgwMBlYBDAwYGDAwGBgwMGBgwMBgYMDAgIHBwICBAQMDBgYDAwYGDAwYGAwMGBgwMBgYMDBgYMDAYGDAwICBAQODgQEDAwYGAwMGBgwMGBgMDBgYMDAYGDAwYGDAwGBgwMCAgQEDg4EBAwMGBgMDBgYMDBgYDAwYGDAwYGAwMGBgwMBgYMDAgIEBA4OBAQMDBgYMDAYGDAwYGAwMGBgwMGBgMDBgYMDAYGDAwICBAQODgQEDAwYGDAwGBgwMGBgMDBgYMDBgYDAwYGDAwICBwcCAgQEDg4EBAwMGBgwMBgYMDBgYDKwCGBgwMGBgMDBgYMDAgIHBwICBAQODgQEDAwYGDAwGBgwMGBgwMBgYMDBgYDAwYGDAwICBwcCAgQEDAwYGAwMGBgwMBgYMDBgYMDAYGDAwYGAwMGBgwMCAgcHAgIEBAwMGBgMDBgYMDAYGDAwYGDAwGBgwMGBgwMBgYMDAgIHBwICBAQMDBgYDAwYGDAwYGAwMGBgwMBgYMDBgYMDAYGDAwICBwcCAgQEDAwYGAwMGBgwMGBgMDBgYuFvjs0mT8eNOBAAAAABJRU5ErkJggg==";

export const exampleScreenshotRequest: ScreenshotRequest = { url: "https://example.com/", viewport: { width: 320, height: 240 }, hide: ["#cookie-banner"] };

export const exampleScreenshotResult: ScreenshotResult = {
  ok: true,
  version: SCREENSHOT_RESULT_VERSION,
  url: "https://example.com/",
  final_url: "https://example.com/",
  fetched_at: "2026-11-21T08:00:00.000Z",
  source_status: 200,
  width: 320,
  height: 240,
  format: "png",
  viewport: { width: 320, height: 240, device_scale_factor: 1, full_page: false },
  image_base64: exampleImage,
  image_sha256: sha256Hex(Buffer.from(exampleImage, "base64")),
  truncated: false,
  warnings: [],
  content_is_untrusted: true,
};
