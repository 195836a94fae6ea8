/** Buys a page as Markdown (GFM tables) beside its clean text. */
import { checkReadRequest, definePlugin, exampleMarkdownResult, priceRead, ReadOutputSchema, ReadRequestSchema, readEndpoint } from "tollbooth";

export default definePlugin({
  id: "web.markdown",
  route: "POST /v1/web/markdown",
  summary: "Read a public web page as Markdown (with its clean text); format defaults to markdown.",
  input: ReadRequestSchema,
  output: ReadOutputSchema,
  check: checkReadRequest,
  price: priceRead,
  timeoutMs: 60_000,
  errors: ["URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "SOURCE_TOO_LARGE", "UNSUPPORTED_CONTENT_TYPE", "PDF_NOT_SUPPORTED_HERE", "BOT_CHALLENGE", "CONTENT_TOO_COMPLEX", "SELECTOR_NOT_FOUND", "SELECTOR_INVALID", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "RENDER_UNAVAILABLE", "RENDER_TIMEOUT", "BATCH_FAILED"],
  examples: [{ title: "Page as Markdown", input: { url: "https://example.com/" }, output: exampleMarkdownResult }],
  run: (input, ctx) => readEndpoint(input, ctx, { defaultFormat: "markdown" }),
});
