/**
 * @module crawl/crawl-schemas — web/crawl's request, its 202 answer, the status a poller reads, its
 * cross-field rules (RE2 patterns, a webhook URL the SSRF guard takes) and its price.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import type { CheckFailure } from "../plugin/check-failure.ts";
import type { NetworkPrices } from "../plugin/price.ts";
import { perUrl, ReadOptionFields } from "../web/endpoint-schemas.ts";
import { vetUrl } from "../web/fetch/target-guard.ts";
import { ApiError } from "../errors.ts";
import { checkMapRequest, MapRequestSchema } from "./map-schemas.ts";

export const MAX_CRAWL_PAGES = 10_000;
export const DEFAULT_CRAWL_PAGES = 100;
export const MAX_CRAWL_DEPTH = 20;
export const DEFAULT_CRAWL_DEPTH = 3;

const mapFields = MapRequestSchema.properties;

export const CrawlRequestSchema = t.Object(
  {
    url: mapFields.url,
    limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_CRAWL_PAGES, default: DEFAULT_CRAWL_PAGES, description: `Pages fetched at most (1 to ${MAX_CRAWL_PAGES}); the price is for this many.` })),
    max_depth: t.Optional(t.Integer({ minimum: 0, maximum: MAX_CRAWL_DEPTH, default: DEFAULT_CRAWL_DEPTH, description: "Links followed from the start page at most this many steps deep (0: the start page and the sitemap's URLs only)." })),
    include: mapFields.include,
    exclude: mapFields.exclude,
    same_site: t.Optional(t.Boolean({ default: true, description: "true: only URLs on the start page's host (www. or not). false: links to other public sites are followed too." })),
    sitemap: mapFields.sitemap,
    ...ReadOptionFields,
    webhook: t.Optional(t.String({ format: "uri", maxLength: 2048, description: "Public http(s) URL that receives signed POSTs: one per page, and one when the crawl completes or fails." })),
  },
  { additionalProperties: false },
);
export type CrawlRequest = Static<typeof CrawlRequestSchema>;

export const CrawlAcceptedSchema = t.Object(
  {
    ok: t.Literal(true),
    crawl_id: t.String(),
    status: t.Literal("queued"),
    status_url: t.String({ description: "GET it (and DELETE it to cancel) with the payer's proof: a Sign-In-With-X payload signed by the paying wallet for this URL, in the SIGN-IN-WITH-X header (MCP: the crawl_status and crawl_cancel tools)." }),
    limit: t.Integer(),
    expires_at: t.String({ format: "date-time", description: "When the crawl and its pages are deleted." }),
  },
  { additionalProperties: false },
);
export type CrawlAccepted = Static<typeof CrawlAcceptedSchema>;

export const crawlStatuses = ["queued", "running", "completed", "cancelled", "failed"] as const;
export type CrawlStatus = (typeof crawlStatuses)[number];

/** Price of a crawl of `limit` pages: web/read's batch price per page (render's with render). The one place the crawl's price is computed. */
export function priceCrawl(input: Pick<CrawlRequest, "limit" | "render">): NetworkPrices {
  const pages = input.limit ?? DEFAULT_CRAWL_PAGES;
  const rate = input.render ? perUrl.render : perUrl.batch;
  return Object.fromEntries(Object.entries(rate).map(([column, usd]) => [column, String((Math.round(usd * 1_000_000) * pages) / 1_000_000)]));
}

/** Patterns that are not RE2 are 400 PATTERN_INVALID before any payment. */
export function checkCrawlRequest(input: CrawlRequest): CheckFailure | undefined {
  return checkMapRequest({ url: input.url, ...(input.include ? { include: input.include } : {}), ...(input.exclude ? { exclude: input.exclude } : {}) });
}

/** A webhook URL the SSRF guard refuses by its form is 400 WEBHOOK_NOT_ALLOWED before any payment (its address is vetted again at each POST). */
export function checkWebhookUrl(webhook: string | undefined, options: { allowLoopbackTargets: boolean }): void {
  if (webhook !== undefined) {
    try {
      vetUrl(webhook, options);
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError("WEBHOOK_NOT_ALLOWED", { message: `webhook: ${error.message}` });
      throw error;
    }
  }
}
