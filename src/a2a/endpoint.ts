/**
 * @module a2a/endpoint — `POST /a2a`: A2A JSON-RPC in both wires on one endpoint, with the official
 * SDK's server pieces over our request handler (request-handler.ts: one turn of our executor per
 * message, tasks in our store): A2A v1.0 (`SendMessage`, `SendStreamingMessage`, `GetTask`,
 * `CancelTask`) through its `JsonRpcTransportHandler`, and v0.3 (`message/send`, `message/stream`,
 * `tasks/get`, `tasks/cancel`) through its compatibility handler (`LegacyJsonRpcTransportHandler`),
 * chosen as the SDK's `legacyCompat` mount chooses: by the `A2A-Version` header, 0.3 when absent
 * (a request without the header that names a v1.0 method is taken as v1.0). A version the card
 * does not declare is the SDK's VersionNotSupported error. Params are checked against the wire's
 * schema first (params.ts: -32602 naming the field). A body that is not JSON is -32700; every
 * other protocol error is the SDK's JSON-RPC error, never a 500. A client that activates the x402
 * extension (X-A2A-Extensions, or A2A 1.0's A2A-Extensions) gets it echoed as activated.
 */
import { type AgentCard, A2A_VERSION_HEADER, formatSSEEvent, SSE_HEADERS } from "@a2a-js/sdk";
import { isV1JsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import { parseBoundedJson } from "../json-depth.ts";
import type { RequestContext } from "../http/request-context.ts";
import { type A2aCallFacts, type A2aExecutorDeps, CALL_FACTS, createA2aExecutor } from "./executor.ts";
import { type JobLookup, jobTasks } from "./job-tasks.ts";
import { paramsProblem, type Wire } from "./params.ts";
import { createA2aRequestHandler } from "./request-handler.ts";
import type { A2aTasks } from "./task-store.ts";
import { A2A_PATH, a2aInterfaces, X402_EXTENSION_URI } from "./skills.ts";

export interface A2aEndpointDeps extends A2aExecutorDeps {
  readonly tasks: A2aTasks;
  readonly jobStatus: JobLookup;
  readonly productVersion: string;
  readonly publicUrl: (request: Request) => string;
}

export type A2aHandler = (request: Request, context: RequestContext) => Promise<Response>;

// v0.3 names the extension header X-A2A-Extensions, A2A 1.0 A2A-Extensions: both are read, and the activation is echoed under both.
const EXTENSIONS_HEADERS = ["X-A2A-Extensions", "A2A-Extensions"] as const;

const extensionHeaders = (activated: readonly string[]): Record<string, string> =>
  activated.length > 0 ? Object.fromEntries(EXTENSIONS_HEADERS.map((name) => [name, activated.join(", ")])) : {};

const json = (body: unknown, activated: readonly string[] = []) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json; charset=utf-8", ...extensionHeaders(activated) } });

type RpcId = string | number | null;
type RpcError = { code: number; message: string; data?: unknown };
/** Each wire's own error shapes (v1.0 adds the error info in `data`). */
const errorBody: Record<Wire, (error: unknown) => RpcError> = {
  "1.0": (error) => JsonRpcTransportHandler.mapToJSONRPCError(error),
  "0.3": (error) => LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error),
};
const rpcError = (id: RpcId, error: RpcError) => ({ jsonrpc: "2.0", id, error });

/**
 * A stream's events as server-sent events. The first event is awaited before answering, so a
 * refused message (unknown task, terminal task) is a plain JSON-RPC error; a later failure is the
 * stream's last event. A client that leaves ends the iteration (the turn itself runs to its end).
 */
async function sse(events: AsyncGenerator<unknown, void, undefined>, id: RpcId, wire: Wire, activated: readonly string[], context: RequestContext): Promise<Response> {
  let first: IteratorResult<unknown, void>;
  try {
    first = await events.next();
  } catch (error) {
    // Logged and counted like a refused message/send.
    context.outcome ??= "rpc_error";
    return json(rpcError(id, errorBody[wire](error)), activated);
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) return controller.close();
      controller.enqueue(encoder.encode(formatSSEEvent(first.value)));
    },
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEEvent(rpcError(id, errorBody[wire](error)))));
        controller.close();
      }
    },
    async cancel() {
      await events.return(undefined);
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...extensionHeaders(activated) } });
}

/** The extensions a client asked to activate (comma-separated URIs, in either header) that this agent serves: only x402. */
function activatedExtensions(request: Request): string[] {
  const asked = EXTENSIONS_HEADERS.flatMap((name) => (request.headers.get(name) ?? "").split(",")).map((uri) => uri.trim());
  return asked.includes(X402_EXTENSION_URI) ? [X402_EXTENSION_URI] : [];
}

/** The card the SDK's transport handlers read (capabilities and the versions served); the public card is /.well-known/agent-card.json. */
function handlerCard(version: string): AgentCard {
  return {
    name: "Tollbooth",
    description: "Pay-per-call web evidence and job skills.",
    version,
    supportedInterfaces: a2aInterfaces("http://localhost"),
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [{ uri: X402_EXTENSION_URI, description: "x402 payments", required: false, params: undefined }] },
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: [],
  } as unknown as AgentCard;
}

/**
 * The wire a request speaks: as its `A2A-Version` header says (the SDK's VersionNotSupportedError
 * for one the card does not declare), else 0.3 as the SDK's compatibility mount takes it, unless it
 * names a v1.0 method (the two wires' method names are disjoint).
 */
function wireOf(request: Request, method: unknown, card: AgentCard): Wire {
  const asked = request.headers.get(A2A_VERSION_HEADER)?.trim();
  if (!asked) return isV1JsonRpcMethod(method) ? "1.0" : "0.3";
  validateVersion(asked, card, "JSONRPC");
  return asked as Wire;
}

export function createA2aEndpoint(deps: A2aEndpointDeps): A2aHandler {
  const card = handlerCard(deps.productVersion);
  const requestHandler = createA2aRequestHandler({ card, tasks: jobTasks(deps.tasks, deps.jobStatus), agent: createA2aExecutor(deps) });
  const handlers: Record<Wire, JsonRpcTransportHandler | LegacyJsonRpcTransportHandler> = { "1.0": new JsonRpcTransportHandler(requestHandler), "0.3": new LegacyJsonRpcTransportHandler(requestHandler) };
  return async (request, context) => {
    context.route = A2A_PATH;
    const parsed = parseBoundedJson(await request.text());
    if (!parsed) {
      context.outcome = "parse_error";
      return json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not JSON (or nests more than 64 levels)." } });
    }
    const body = parsed.value;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      context.outcome = "invalid_request";
      return json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: send one JSON-RPC 2.0 request object (batches are not served)." } });
    }
    const rpc = body as { id?: unknown; method?: unknown; params?: unknown };
    const id = (typeof rpc.id === "string" || typeof rpc.id === "number" ? rpc.id : null) as RpcId;
    const activated = activatedExtensions(request);
    let wire: Wire;
    try {
      wire = wireOf(request, rpc.method, card);
    } catch (error) {
      context.outcome = "rpc_error";
      return json(rpcError(id, errorBody["1.0"](error)), activated);
    }
    const problem = typeof rpc.method === "string" ? paramsProblem(wire, rpc.method, rpc.params) : undefined;
    if (problem) {
      context.outcome = "invalid_params";
      return json(rpcError(id, { code: -32602, message: problem }), activated);
    }
    const facts: A2aCallFacts = { requestId: context.id, clientAddress: () => context.clientIp, origin: deps.publicUrl(request), signal: request.signal, report: context };
    const callContext = new ServerCallContext({ requestedVersion: wire, state: new Map<string, unknown>([[CALL_FACTS, facts]]) });
    const answer = await handlers[wire].handle(body as Record<string, unknown>, callContext);
    if (Symbol.asyncIterator in answer) return sse(answer, id, wire, activated, context);
    if (answer.error) context.outcome ??= "rpc_error";
    // The payment flow works without activation (the card marks the extension not required); an activation asked for is confirmed.
    return json(answer, activated);
  };
}
