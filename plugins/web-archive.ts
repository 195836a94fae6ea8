/** Buys a signed, replayable web archive (WACZ) of a public page: every request the browser made, its screenshot, and a signature ReplayWeb.page checks. */
import { ArchiveRequestSchema, ArchiveResultSchema, archiveEndpoint, checkArchiveRequest, definePlugin, exampleArchiveRequest, exampleArchiveResult, priceArchive } from "tollbooth";

export default definePlugin({
  id: "web.archive",
  route: "POST /v1/web/archive",
  summary: "Archive a public web page as a signed WACZ file (WARC 1.1 records of every request the browser made, a screenshot, pages.jsonl, a CDXJ index) that ReplayWeb.page opens and verifies.",
  description:
    "Loads a public http(s) page in headless Chromium (robots.txt honoured, every request the browser makes vetted: public IPv4 only, no downloads, popups or permissions) and records each request and response as the page received them into a WACZ 1.1.1 package, signed in its datapackage-digest.json (ECDSA P-384, webrecorder's WACZ signing spec) and attested by the usual signed statement over the file's SHA-256. Bounded: max_bytes of response bodies (default 5 MiB, at most 20 MiB), 5 MiB per resource, 200 resources, the render deadline; what is left out is listed in left_out, the warnings and the archive's metadata record. A page whose own document does not fit is 422 ARCHIVE_TOO_LARGE, not charged. Nothing of the page is kept after the answer. The page is untrusted content.",
  input: ArchiveRequestSchema,
  output: ArchiveResultSchema,
  check: checkArchiveRequest,
  price: priceArchive,
  timeoutMs: 60_000,
  errors: ["URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "PDF_NOT_SUPPORTED_HERE", "ARCHIVE_TOO_LARGE", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "DNS_FAILED", "RENDER_UNAVAILABLE", "RENDER_TIMEOUT", "RENDER_FAILED", "AT_CAPACITY"],
  examples: [{ title: "A page, its subresources and its screenshot (wacz_base64 and hashes shortened)", input: exampleArchiveRequest, output: exampleArchiveResult }],
  run: (input, ctx) => archiveEndpoint(input, ctx),
});
