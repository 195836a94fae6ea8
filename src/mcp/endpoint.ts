/**
 * @module mcp/endpoint — `POST /mcp`: a stateless Streamable HTTP MCP server (official SDK; one
 * Server and transport per request, JSON answers, no session) over the tool list compiled at
 * start. Host and Origin are checked before (http/door-guard.ts). Before the SDK sees a request: a
 * body that is not JSON is -32700, one that is not a JSON-RPC message is -32600, and params that do
 * not fit the method are -32602 (mcp/envelope.ts). The body cap, request deadline and log line are
 * the HTTP server's (http/serve.ts); paid calls share its rate limit.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ApiError } from "../errors.ts";
import { parseBoundedJson } from "../json-depth.ts";
import { checkEnvelope, type EnvelopeCheck, rawNumericIds } from "./envelope.ts";
import type { RequestContext } from "../http/request-context.ts";
import { callTool, type ToolCallDeps } from "./tool-call.ts";
import type { ToolList } from "./tools.ts";

export interface McpEndpointDeps extends ToolCallDeps {
  readonly tools: ToolList;
  readonly productVersion: string;
  /** The base URL callers reach (public URL, else the caller's Host, one the door guard allows): resource URLs. */
  readonly publicUrl: (request: Request) => string;
}

export type McpHandler = (request: Request, context: RequestContext) => Promise<Response>;

const INSTRUCTIONS =
  "Tollbooth sells web evidence and job skills per call, paid with x402 v2 (USDC). A paid tool called without payment answers a tool error whose structuredContent is the PaymentRequired offer; " +
  'sign one of its accepts and call again with the PaymentPayload in params._meta["x402/payment"]. The answer carries _meta["x402/payment-response"]. Failed work is never charged.';

function rpcError(status: number, code: number, message: string, id: unknown = null): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), { status, headers: { "content-type": "application/json; charset=utf-8" } });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON-RPC 2.0 request, notification or response (the shapes a client may post); anything else is an invalid request. */
function isJsonRpcMessage(value: unknown): boolean {
  if (!isObject(value) || value.jsonrpc !== "2.0") return false;
  const id = value.id;
  const validId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  if (typeof value.method === "string") return (id === undefined || validId) && (value.params === undefined || typeof value.params === "object");
  return validId && ("result" in value || isObject(value.error));
}

function idOf(value: unknown): unknown {
  return isObject(value) && (typeof value.id === "string" || typeof value.id === "number") ? value.id : null;
}

/** The answer with every swapped id written back as the caller sent it (most answers have none to restore). */
async function restoreIds(answer: Response, checks: readonly Extract<EnvelopeCheck, { ok: true }>[]): Promise<Response> {
  const restores = checks.flatMap((check) => (check.restoreId ? [check.restoreId] : []));
  if (restores.length === 0) return answer;
  let text = await answer.text();
  for (const restore of restores) text = restore(text);
  return new Response(text, { status: answer.status, headers: answer.headers });
}

export function createMcpEndpoint(deps: McpEndpointDeps): McpHandler {
  // Shared: the SDK builds an Ajv instance per Server otherwise (only used for elicitation).
  const validator = new AjvJsonSchemaValidator();
  const listed = { tools: [...deps.tools.tools] };

  return async (request, context) => {
    context.route = "/mcp";
    const base = deps.publicUrl(request);
    const text = await request.text();
    const parsed = parseBoundedJson(text);
    if (!parsed) {
      context.outcome = "parse_error";
      return rpcError(400, ErrorCode.ParseError, "Parse error: the body is not JSON (or nests more than 64 levels).");
    }
    const message = parsed.value;
    if (Array.isArray(message) ? message.length === 0 || !message.every(isJsonRpcMessage) : !isJsonRpcMessage(message)) {
      context.outcome = "invalid_request";
      return rpcError(400, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc \"2.0\", a string method, an id that is a string or number).", Array.isArray(message) ? null : idOf(message));
    }
    const batch = Array.isArray(message);
    const messages = batch ? (message as Record<string, unknown>[]) : [message as Record<string, unknown>];
    // Ids as written are read only when one is beyond 2^53 (rare): the scan costs a pass over the body.
    const rawIds = messages.some((m) => typeof m.id === "number" && !Number.isSafeInteger(m.id)) ? rawNumericIds(text) : [];
    const checks = messages.map((m, i) => checkEnvelope(m, rawIds.length === messages.length ? rawIds[i] : undefined));
    const refused = checks.find((check) => !check.ok);
    if (refused && !refused.ok) {
      context.outcome = refused.code === ErrorCode.InvalidParams ? "invalid_params" : "invalid_request";
      return rpcError(refused.code === ErrorCode.InvalidParams ? 200 : 400, refused.code, refused.message, batch ? null : idOf(message));
    }
    const accepted = checks.flatMap((check) => (check.ok ? [check] : []));

    const server = new Server({ name: "tollbooth", version: deps.productVersion }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator });
    server.setRequestHandler(ListToolsRequestSchema, () => listed);
    server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
      const binding = deps.tools.byName.get(params.name);
      if (!binding) {
        context.outcome = "UNKNOWN_SKILL";
        const unknown = new ApiError("UNKNOWN_SKILL", { message: `No tool "${params.name.slice(0, 100)}"; see tools/list.`, details: { tools: listed.tools.map((t) => t.name) } });
        return { isError: true, content: [{ type: "text" as const, text: JSON.stringify(unknown.toBody(context.id)) }] };
      }
      return callTool(deps, binding, {
        name: params.name,
        arguments: params.arguments ?? {},
        meta: params._meta,
        requestId: context.id,
        clientAddress: () => context.clientIp,
        origin: base,
        signal: AbortSignal.any([request.signal, extra.signal]),
        report: context,
      });
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const answer = await transport.handleRequest(request, { parsedBody: batch ? accepted.map((check) => check.message) : accepted[0]!.message });
      return await restoreIds(answer, accepted);
    } finally {
      void server.close();
    }
  };
}
