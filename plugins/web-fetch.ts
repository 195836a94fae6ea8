/** Buys the compact read of a page: text, title and hashes without headings, links or metadata. */
import { checkReadRequest, definePlugin, exampleReadResult, FetchOutputSchema, fetchEndpoint, priceRead, ReadRequestSchema, toCompactResult } from "tollbooth";

export default definePlugin({
  id: "web.fetch",
  route: "POST /v1/web/fetch",
  summary: "Compact read of a public web page: text, title and hashes (same engine and prices as web/read).",
  input: ReadRequestSchema,
  output: FetchOutputSchema,
  check: checkReadRequest,
  price: priceRead,
  timeoutMs: 60_000,
  errors: ["URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "SOURCE_TOO_LARGE", "UNSUPPORTED_CONTENT_TYPE", "PDF_NOT_SUPPORTED_HERE", "BOT_CHALLENGE", "CONTENT_TOO_COMPLEX", "SELECTOR_NOT_FOUND", "SELECTOR_INVALID", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "RENDER_UNAVAILABLE", "RENDER_TIMEOUT", "BATCH_FAILED"],
  examples: [{ title: "Compact read", input: { url: "https://example.com/" }, output: toCompactResult(exampleReadResult) }],
  run: (input, ctx) => fetchEndpoint(input, ctx),
});
