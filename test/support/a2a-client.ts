/**
 * The two official A2A clients the tests buy with (@a2a-js/sdk): the default v1.0 client
 * (`ClientFactory`, from the agent card) and the v0.3 JSON-RPC transport (`LegacyJsonRpcTransport`),
 * with one-part messages as the A2A tests send them.
 */
import { expect } from "bun:test";
import { Role } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";

/** What both clients offer alike. */
export type A2aCaller = Pick<Client, "sendMessage" | "sendMessageStream" | "getTask" | "cancelTask" | "protocolVersion">;
export type A2aTask = Awaited<ReturnType<A2aCaller["getTask"]>>;
export type A2aContent = { $case: "data"; value: Record<string, unknown> } | { $case: "text"; value: string };
type StreamResponse = Extract<Awaited<ReturnType<ReturnType<A2aCaller["sendMessageStream"]>["next"]>>["value"], { payload?: unknown }>;
export type A2aEvent = StreamResponse["payload"];

export interface A2aWire {
  readonly name: string;
  /** The A2A-Version it sends, and its method names for a raw JSON-RPC caller. */
  readonly version: "1.0" | "0.3";
  readonly methods: { readonly send: string; readonly get: string; readonly resubscribe: string };
  /** A client of `base` (the server's root) speaking this wire; `fetchImpl` in place of the network when given. */
  connect(base: string, fetchImpl?: typeof fetch): Promise<A2aCaller>;
}

/** The default client from the agent card (A2A v1.0), and the v0.3 transport at the card's url. */
export const a2aWires: readonly A2aWire[] = [
  {
    name: "A2A v1.0 (ClientFactory)",
    version: "1.0",
    methods: { send: "SendMessage", get: "GetTask", resubscribe: "SubscribeToTask" },
    connect: (base, fetchImpl) =>
      fetchImpl
        ? new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) })).createFromUrl(base)
        : new ClientFactory().createFromUrl(base),
  },
  {
    name: "A2A v0.3 (LegacyJsonRpcTransport)",
    version: "0.3",
    methods: { send: "message/send", get: "tasks/get", resubscribe: "tasks/resubscribe" },
    connect: async (base, fetchImpl) => new LegacyJsonRpcTransport({ endpoint: `${base}/a2a`, ...(fetchImpl ? { fetchImpl } : {}) }),
  },
];

/** A user message with one part on `taskId` ("" opens a task) and message metadata. */
export const userMessage = (content: A2aContent, taskId = "", metadata?: Record<string, unknown>) => ({
  tenant: "",
  message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts: [{ content, metadata: undefined, filename: "", mediaType: "" }], metadata, extensions: [], referenceTaskIds: [] },
  configuration: undefined,
  metadata: undefined,
});

/** message/send with one part on `taskId` ("" opens a task) and message metadata; the task it answers (a plain message fails the test). */
export async function sendPart(client: A2aCaller, content: A2aContent, taskId = "", metadata?: Record<string, unknown>): Promise<A2aTask> {
  const sent = await client.sendMessage(userMessage(content, taskId, metadata));
  expect("status" in sent).toBe(true);
  return sent as A2aTask;
}

/** message/stream with one part; every event's payload, in order. */
export async function streamPart(client: A2aCaller, content: A2aContent, taskId = "", metadata?: Record<string, unknown>): Promise<A2aEvent[]> {
  const events: A2aEvent[] = [];
  for await (const event of client.sendMessageStream(userMessage(content, taskId, metadata))) events.push(event.payload);
  return events;
}

/** The metadata of a task's status message (where the x402 extension puts the offer, the status and the receipts). */
export const statusMetadata = (task: A2aTask) => (task.status?.message?.metadata ?? {}) as Record<string, unknown>;
