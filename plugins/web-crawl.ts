/** Buys a crawl of a site: up to `limit` pages read like web/read, each signed, fetched politely in the background and polled by the payer. */
import { ApiError, checkCrawlRequest, CrawlAcceptedSchema, CrawlRequestSchema, definePlugin, priceCrawl } from "tollbooth";

export default definePlugin({
  id: "web.crawl",
  route: "POST /v1/web/crawl",
  successStatus: 202,
  summary: "Crawl a site: up to limit pages (1-10,000) read like web/read and signed, found from its sitemaps and links, polled at status_url by the payer (proved by its wallet's Sign-In-With-X signature). Paid exact for limit pages (upto cannot wait for a crawl); the pages not read when it ends, cancelled included, are recorded as a refund due to the payer.",
  description:
    "Answers 202 with crawl_id and status_url. Only the payer reads or cancels it, with the payer's proof: a Sign-In-With-X payload (x402's SIWX, CAIP-122; SIWE/EIP-191 on Base, Ed25519 signBytes on Algorand) signed by the paying wallet for status_url, with a fresh nonce and at most 5 minutes old, base64 JSON in the SIGN-IN-WITH-X header (a request without it answers 401 PAYER_PROOF_REQUIRED with the fields to sign; another wallet's proof 403 CRAWL_ACCESS_DENIED). GET status_url for the status, counts and the pages so far (signed read results or inline errors, paged by cursor); DELETE it to cancel; over MCP the crawl_status and crawl_cancel tools take the same proof. Stays on the start page's site unless same_site is false, follows links up to max_depth, honours robots.txt (and its Crawl-delay), the SSRF guard and include/exclude; at most 2 fetches at a time per host; de-duplicated by canonical URL and by text. Price: web/read's batch price for each of limit pages, paid exact when the crawl is accepted (upto cannot serve a crawl: its authorization lapses before the crawl ends); when it ends (completed, failed or cancelled) with fewer pages read than limit, the paid share of the pages not read is recorded as a refund due to the payer (refund_due_usd in its status) and paid back from the server's refund account where it has one. Pages are kept until the crawl expires (24 h by default), then deleted. Optional webhook: signed POSTs per page and at the end.",
  input: CrawlRequestSchema,
  output: CrawlAcceptedSchema,
  check: checkCrawlRequest,
  admit: (input, ctx) => ctx.crawl?.check(input),
  price: priceCrawl,
  timeoutMs: 30_000,
  errors: ["URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "DNS_FAILED", "PATTERN_INVALID", "WEBHOOK_NOT_ALLOWED", "CRAWL_NOT_FOUND", "CRAWL_ACCESS_DENIED", "PAYER_PROOF_REQUIRED", "PAYER_PROOF_INVALID", "CRAWL_NO_PAGES"],
  examples: [
    {
      title: "Crawl the documentation of a site",
      input: { url: "https://example.com/docs/", limit: 50, include: ["^/docs/"] },
      output: {
        ok: true,
        crawl_id: "crawl_0f4c2a9e61b34d7a8c5e2f1b0a9d8c7e",
        status: "queued",
        status_url: "https://tollbooth.example/v1/web/crawl/crawl_0f4c2a9e61b34d7a8c5e2f1b0a9d8c7e",
        limit: 50,
        expires_at: "2026-12-08T10:00:00.000Z",
      },
    },
  ],
  run: async (input, ctx) => {
    if (!ctx.crawl) throw new ApiError("SERVICE_PAUSED", { message: "Crawls are not run by this server; nothing was charged." });
    return ctx.crawl.create(input);
  },
  settlement: {
    settled: async (accepted, receipt, ctx) => {
      await ctx.crawl?.release(accepted, receipt);
      return accepted;
    },
    unsettled: async (accepted, outcome, ctx) => {
      // Pending: it may still land; the crawl stays held (never started) until it expires.
      if (outcome.state === "failed") await ctx.crawl?.drop(accepted);
    },
  },
});
