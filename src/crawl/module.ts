/**
 * @module crawl/module — web/crawl's crawls as a feature module: a crawl's status and its cancel
 * (GET and DELETE /v1/web/crawl/:id, for its payer). The crawl service (crawl-service.ts) is still
 * built by app.ts, which hands it to plugins as `ctx.crawls` and to the MCP door; its tables are a
 * core family of database.ts.
 */
import { defineModule, type ModuleDeps } from "../module/define.ts";
import type { CrawlService } from "./crawl-service.ts";

export default defineModule({
  id: "crawl",
  serve: ({ crawls }: ModuleDeps & { readonly crawls: Pick<CrawlService, "get" | "cancel"> }) => ({
    routes: [
      { method: "GET", path: "/v1/web/crawl/:id", handle: (request, call) => crawls.get(request, call.params.id!) },
      { method: "DELETE", path: "/v1/web/crawl/:id", handle: (request, call) => crawls.cancel(request, call.params.id!) },
    ],
  }),
});
