/**
 * @module mcp/module — the MCP face as a feature module: POST /mcp (stateless Streamable HTTP) and
 * GET /mcp's 405, both agent doors (the front checks Host and Origin first). The tool list is
 * compiled at start; the MCP SDK (~30 MB, ~0.4 s to load) only with the first POST.
 */
import type { AgentDoorDeps } from "../a2a/module.ts";
import { ApiError } from "../errors.ts";
import { contextOf } from "../http/request-context.ts";
import { defineModule } from "../module/define.ts";
import type { Catalogue } from "../plugin/catalogue.ts";
import type { PaymentGate } from "../x402/gate.ts";
import type { McpHandler } from "./endpoint.ts";
import { compileTools, MCP_PATH } from "./tools.ts";

export default defineModule({
  id: "mcp",
  serve: (deps: AgentDoorDeps & { readonly catalogue: Catalogue; readonly gate?: PaymentGate | undefined }) => {
    const { registry, catalogue, payments, operation, gate, productVersion, baseUrl } = deps;
    const { jobs, crawl: crawls } = deps.services;
    const tools = compileTools(registry, catalogue, payments.enabled);
    let endpoint: Promise<McpHandler> | undefined;
    const post = async (request: Request) => {
      endpoint ??= import("./endpoint.ts").then(({ createMcpEndpoint }) =>
        createMcpEndpoint({
          tools,
          productVersion,
          publicUrl: baseUrl,
          operation,
          payments,
          jobStatus: jobs.status,
          crawls,
          lookupPayment: gate ? async (id: string) => gate.lookup(id) : undefined,
        }),
      );
      return (await endpoint)(request, contextOf(request));
    };
    // Stateless: no stream for server-initiated messages, no session to open or delete.
    const get = () => {
      throw new ApiError("METHOD_NOT_ALLOWED", { message: "MCP here is stateless Streamable HTTP: POST JSON-RPC messages to /mcp.", headers: { Allow: "POST" } });
    };
    return {
      routes: [
        { method: "POST", path: MCP_PATH, door: true, handle: post },
        { method: "GET", path: MCP_PATH, door: true, handle: get },
      ],
    };
  },
});
