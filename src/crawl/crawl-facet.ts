/**
 * @module crawl/crawl-facet — what web/crawl's `run` may do through `ctx.crawls` (the crawl service
 * implements it), merged into the plugin context (plugin/context.ts PluginFacets) without the
 * contract importing crawl/.
 */
import type { SettlementReceipt } from "../plugin/settlement-receipt.ts";
import type { CrawlAccepted, CrawlRequest } from "./crawl-schemas.ts";

/** What web/crawl's `run` may do, bound to one paid call. */
export interface CrawlFacet {
  /** Refuses a webhook the SSRF guard refuses (400, before payment). */
  check(input: CrawlRequest): void;
  /** A held crawl: nothing is fetched until `release`. */
  create(input: CrawlRequest): Promise<CrawlAccepted>;
  /** The payment settled: the crawl starts, its pages signed naming this payment. */
  release(accepted: CrawlAccepted, receipt: SettlementReceipt): Promise<void>;
  /** The payment did not settle: the crawl is deleted, nothing was fetched. */
  drop(accepted: CrawlAccepted): Promise<void>;
}

declare module "../plugin/context.ts" {
  interface PluginFacets {
    /** web/crawl's crawls, bound to this call's payer (absent where no crawl service runs). */
    readonly crawls?: CrawlFacet;
  }
}

export interface CrawlCall {
  readonly payer?: string | undefined;
  readonly origin?: string | undefined;
  readonly requestId: string;
}
