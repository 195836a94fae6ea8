/**
 * @module crawl/module — web/crawl's crawls as a feature module: the crawl service (crawl-service.ts:
 * its worker, webhooks and refunds), offered as `services.crawl` (the front hands plugins its facet as
 * `ctx.crawls`, the MCP door its status and cancel), and a crawl's status and cancel routes (GET and
 * DELETE /v1/web/crawl/:id, for its payer). Its tables are still a core family of database.ts.
 */
import type { EvidenceKeys } from "../evidence/key-file.ts";
import type { SealCall } from "../evidence/seal.ts";
import { defineModule, type ModuleDeps, type ModuleStore } from "../module/define.ts";
import type { DeliveryRefunds } from "../refunds/delivery-refunds.ts";
import type { WebEngine } from "../web/engine.ts";
import type { ProofNonces } from "../x402/proof-nonces.ts";
import { tables } from "./tables.ts";
import { type CrawlConfig, type CrawlService, createCrawlService } from "./crawl-service.ts";
import type { CrawlStore } from "./crawl-store.ts";

declare module "../module/define.ts" {
  interface ModuleServices {
    readonly crawl: CrawlService;
  }
}

export interface CrawlServeDeps extends ModuleDeps {
  readonly config: CrawlConfig;
  readonly store: ModuleStore & { readonly crawls: CrawlStore; readonly proofNonces: ProofNonces };
  readonly web: WebEngine;
  readonly evidenceKeys: EvidenceKeys;
  /** Where a crawl's unread pages are refunded (absent: the store's ledger). */
  readonly deliveryRefunds?: Pick<DeliveryRefunds, "recordDue"> | undefined;
  /** Signs a crawl's evidence (absent: benchmarks leave it unsigned). */
  readonly sealEvidence?: ((result: object, payment: SealCall["payment"]) => Promise<unknown>) | undefined;
  readonly baseUrl: (request: Request) => string;
}

export default defineModule({
  id: "crawl",
  tables,
  serve: ({ config, store, web, log, now, evidenceKeys, deliveryRefunds, sealEvidence, baseUrl }: CrawlServeDeps) => {
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
      ...(sealEvidence ? { seal: (result: object, payment: SealCall["payment"] | null) => sealEvidence(result, payment ?? undefined) } : {}),
    });
    return {
      service: crawls,
      routes: [
        { method: "GET", path: "/v1/web/crawl/:id", handle: (request, call) => crawls.get(request, call.params.id!) },
        { method: "DELETE", path: "/v1/web/crawl/:id", handle: (request, call) => crawls.cancel(request, call.params.id!) },
      ],
    };
  },
});
