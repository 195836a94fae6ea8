/** One-part A2A messages through the official client (@a2a-js/sdk v0.3 JSON-RPC transport), as the A2A tests send them. */
import { expect } from "bun:test";
import { Role } from "@a2a-js/sdk";
import type { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";

export type A2aTask = Awaited<ReturnType<LegacyJsonRpcTransport["getTask"]>>;
export type A2aContent = { $case: "data"; value: Record<string, unknown> } | { $case: "text"; value: string };

/** message/send with one part on `taskId` ("" opens a task) and message metadata; the task it answers (a plain message fails the test). */
export async function sendPart(client: LegacyJsonRpcTransport, content: A2aContent, taskId = "", metadata?: Record<string, unknown>): Promise<A2aTask> {
  const sent = await client.sendMessage({
    tenant: "",
    message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts: [{ content, metadata: undefined, filename: "", mediaType: "" }], metadata, extensions: [], referenceTaskIds: [] },
    configuration: undefined,
    metadata: undefined,
  });
  expect("status" in sent).toBe(true);
  return sent as A2aTask;
}

/** The metadata of a task's status message (where the x402 extension puts the offer, the status and the receipts). */
export const statusMetadata = (task: A2aTask) => (task.status?.message?.metadata ?? {}) as Record<string, unknown>;
