/**
 * @module crawl/crawl-facet — what web/crawl's `run` may do through `ctx.crawl` (the crawl service
 * implements it, the crawl module hands it each call), merged into the plugin context through
 * ModuleFacets (module/define.ts) without the contract importing crawl/.
 */
import type { SettlementReceipt } from "../plugin/settlement-receipt.ts";
import type { CrawlAccepted, CrawlRequest } from "./crawl-schemas.ts";

/** What web/crawl's `run` may do, bound to one paid call. */
export interface CrawlFacet {
  /**
   * Refuses, before payment, a start URL the SSRF guard refuses (400 URL_NOT_ALLOWED by its form,
   * 422 TARGET_NOT_PUBLIC by its address, 502 DNS_FAILED) and a webhook it refuses (400).
   */
  check(input: CrawlRequest): Promise<void>;
  /** A held crawl: nothing is fetched until `release`. */
  create(input: CrawlRequest): Promise<CrawlAccepted>;
  /** The payment settled: the crawl starts, its pages signed naming this payment. */
  release(accepted: CrawlAccepted, receipt: SettlementReceipt): Promise<void>;
  /** The payment did not settle: the crawl is deleted, nothing was fetched. */
  drop(accepted: CrawlAccepted): Promise<void>;
}

declare module "../module/define.ts" {
  interface ModuleFacets {
    /** web/crawl's crawls, bound to this call's payer (the crawl module's facet; absent where no crawl service runs). */
    readonly crawl?: CrawlFacet;
  }
}

export interface CrawlCall {
  readonly payer?: string | undefined;
  readonly origin?: string | undefined;
  readonly requestId: string;
}

/** Who asks for a crawl, from where: the payer's proof (x402/payer-proof.ts) and the origin it reached. */
export interface CrawlAsker {
  readonly proof: string | null | undefined;
  readonly origin: string;
}

/** A crawl's status and cancel for its payer, as HTTP, MCP and A2A serve them (crawl-service.ts); they throw ApiErrors. */
export interface CrawlDoor {
  /** The status and a page of results (`query`: cursor and limit as GET takes them). */
  status(id: string, asker: CrawlAsker, query: { readonly cursor?: unknown; readonly limit?: unknown }): Promise<Record<string, unknown>>;
  /** Cancels the crawl; its status after. */
  stop(id: string, asker: CrawlAsker): Promise<Record<string, unknown>>;
}
