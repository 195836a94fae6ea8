/** Buys a signed screenshot of a public page: its viewport, its full height or one element, as PNG, JPEG or WebP. */
import { checkScreenshotRequest, definePlugin, exampleScreenshotRequest, exampleScreenshotResult, priceScreenshot, ScreenshotRequestSchema, ScreenshotResultSchema, screenshotEndpoint } from "tollbooth";

export default definePlugin({
  id: "web.screenshot",
  route: "POST /v1/web/screenshot",
  summary: "Capture a public web page as an image (viewport, full page or one element), with its SHA-256 signed beside the viewport.",
  description:
    "Loads a public http(s) page in headless Chromium (robots.txt honoured, every request the browser makes vetted: public IPv4 only, no downloads, popups or permissions) and returns the image base64-encoded with its SHA-256. A full page is cut at 16,384 image pixels high (truncated: true); an image over 5 MiB is 422 SCREENSHOT_TOO_LARGE; a selector matching nothing is 422 SELECTOR_NOT_FOUND. None of these is charged. The page is untrusted content.",
  input: ScreenshotRequestSchema,
  output: ScreenshotResultSchema,
  check: checkScreenshotRequest,
  price: priceScreenshot,
  timeoutMs: 60_000,
  errors: ["URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "PDF_NOT_SUPPORTED_HERE", "SELECTOR_NOT_FOUND", "SELECTOR_INVALID", "SCREENSHOT_TOO_LARGE", "SOURCE_UNREACHABLE", "DNS_FAILED", "RENDER_UNAVAILABLE", "RENDER_TIMEOUT", "RENDER_FAILED", "AT_CAPACITY"],
  examples: [{ title: "A viewport with the cookie banner hidden", input: exampleScreenshotRequest, output: exampleScreenshotResult }],
  run: (input, ctx) => screenshotEndpoint(input, ctx),
});
