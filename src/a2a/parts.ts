/**
 * @module a2a/parts — the A2A objects this agent writes (SDK v1 shapes; the v0.3 handler turns them
 * into wire JSON): text and data parts, agent messages, and the x402 extension's metadata keys.
 */
import { randomUUID } from "node:crypto";
import { Role } from "@a2a-js/sdk";
import type { RequestContext } from "@a2a-js/sdk/server";

export type Task = NonNullable<RequestContext["task"]>;
export type Message = Task["history"][number];
export type Part = Message["parts"][number];
export type Artifact = Task["artifacts"][number];

export const STATUS_KEY = "x402.payment.status";
export const REQUIRED_KEY = "x402.payment.required";
export const PAYLOAD_KEY = "x402.payment.payload";
export const RECEIPTS_KEY = "x402.payment.receipts";
export const ERROR_KEY = "x402.payment.error";
/** Task metadata: what the task sells, kept so the paid message runs the input the offer priced. */
export const ORDER_KEY = "tollbooth.order";
/** Task metadata: the job an async skill's task follows. */
export const JOB_KEY = "tollbooth.job";

export const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" });
export const dataPart = (data: unknown): Part => ({ content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "application/json" });

export function agentMessage(task: { readonly contextId: string; readonly taskId: string }, parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId: task.contextId, taskId: task.taskId, role: Role.ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
}

export const resultArtifact = (name: string, result: unknown): Artifact => ({ artifactId: randomUUID(), name, description: "", parts: [dataPart(result)], metadata: undefined, extensions: [] });
