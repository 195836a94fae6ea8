/**
 * @module crawl/module — web/crawl's crawls as a feature module: the crawl service (crawl-service.ts:
 * its worker, webhooks and refunds), offered as `services.crawl` (the front hands plugins its facet as
 * `ctx.crawl`, the MCP door its status and cancel), and a crawl's status and cancel routes (GET and
 * DELETE /v1/web/crawl/:id, for its payer). Its tables (tables.ts): the crawls and the payer-proof nonces.
 */
import type { EvidenceKeys } from "../evidence/key-file.ts";
import type { SealCall } from "../evidence/seal.ts";
import { defineModule, type ModuleDeps } from "../module/define.ts";
import type { DeliveryRefunds } from "../refunds/delivery-refunds.ts";
import type { WebEngine } from "../web/engine.ts";
import { tables } from "./tables.ts";
import { type CrawlConfig, type CrawlService, createCrawlService } from "./crawl-service.ts";

declare module "../module/define.ts" {
  interface ModuleServices {
    readonly crawl: CrawlService;
  }
}

export interface CrawlServeDeps extends ModuleDeps {
  readonly config: CrawlConfig;
  readonly web: WebEngine;
  readonly evidenceKeys: EvidenceKeys;
  /** Where a crawl's unread pages are refunded (absent: the store's ledger). */
  readonly deliveryRefunds?: Pick<DeliveryRefunds, "recordDue"> | undefined;
  readonly baseUrl: (request: Request) => string;
}

export default defineModule({
  id: "crawl",
  tables,
  serve: ({ config, store, web, log, now, evidenceKeys, deliveryRefunds, baseUrl, services }: CrawlServeDeps) => {
    // Signs a crawl's evidence (absent: benchmarks leave it unsigned).
    const sealEvidence = services.evidence.seal;
    const crawls = createCrawlService({
      config,
      store: store.crawls,
      web,
      log: log.child({ component: "crawl" }),
      now,
      evidenceKeys,
      receipts: store.receipts,
      refunds: deliveryRefunds ?? store.deliveryRefunds,
      publicUrl: baseUrl,
      proofNonces: store.proofNonces,
      onClose: (stop) => store.onClose(stop),
      ...(sealEvidence ? { seal: (result: object, payment: SealCall["payment"] | null) => sealEvidence(result, { payment: payment ?? undefined }) } : {}),
    });
    return {
      service: crawls,
      facet: (call) => crawls.facet({ payer: call.payer, origin: call.origin, requestId: call.requestId }),
      routes: [
        { method: "GET", path: "/v1/web/crawl/:id", handle: (request, call) => crawls.get(request, call.params.id!) },
        { method: "DELETE", path: "/v1/web/crawl/:id", handle: (request, call) => crawls.cancel(request, call.params.id!) },
      ],
    };
  },
});
