/**
 * One paid call over each transport with the official clients: ask unpaid (the offer), sign it with
 * the official x402 client, send it again paid. For tests of a plugin sold on HTTP, MCP and A2A.
 */
import { expect } from "bun:test";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "../../src/x402/messages.ts";
import { sendPart, statusMetadata } from "./a2a-client.ts";

export interface PaidAnswer {
  readonly offer: PaymentRequired;
  /** Whether the settlement succeeded (a payment response that says so). */
  readonly settled: boolean;
  /** HTTP status, or 200 / 500 for a tool result or task that is not / is an error. */
  readonly status: number;
  /** The answer as JSON text (the body, the tool content, the task's artifacts). */
  readonly text: string;
  /** HTTP only: the answer's headers (PAYMENT-RESPONSE names the amount settled). */
  readonly headers?: Headers;
}

const sign = async (buyer: x402Client, offer: PaymentRequired) => (await buyer.createPaymentPayload(offer as never)) as unknown as PaymentPayload;

export async function payOverHttp(buyer: x402Client, url: string, input: unknown): Promise<PaidAnswer> {
  const http = new x402HTTPClient(buyer);
  const post = (headers: Record<string, string> = {}) => fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(input) });
  const unpaid = await post();
  expect(unpaid.status).toBe(402);
  const offer = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json()) as unknown as PaymentRequired;
  const paid = await post(http.encodePaymentSignatureHeader((await sign(buyer, offer)) as never));
  const settled = paid.headers.get("payment-response") !== null && http.getPaymentSettleResponse((name) => paid.headers.get(name)).success;
  return { offer, settled, status: paid.status, text: await paid.text(), headers: paid.headers };
}

export async function payOverMcp(buyer: x402Client, mcp: Client, tool: string, input: Record<string, unknown>): Promise<PaidAnswer> {
  const call = (meta?: Record<string, unknown>) => mcp.callTool({ name: tool, arguments: input, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;
  const unpaid = await call();
  expect(unpaid.isError).toBe(true);
  const offer = unpaid.structuredContent as unknown as PaymentRequired;
  const paid = await call({ "x402/payment": await sign(buyer, offer) });
  const response = (paid._meta as Record<string, { success?: boolean }> | undefined)?.["x402/payment-response"];
  return { offer, settled: response?.success === true, status: paid.isError ? 500 : 200, text: JSON.stringify(paid.content) };
}

export async function payOverA2a(buyer: x402Client, base: string, skill: string, input: Record<string, unknown>): Promise<PaidAnswer> {
  const a2a = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a` });
  const task = await sendPart(a2a, { $case: "data", value: { skill, ...input } });
  expect(statusMetadata(task)["x402.payment.status"]).toBe("payment-required");
  const offer = statusMetadata(task)["x402.payment.required"] as PaymentRequired;
  const done = await sendPart(a2a, { $case: "text", value: "payment" }, task.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": await sign(buyer, offer) });
  const settled = statusMetadata(done)["x402.payment.status"] === "payment-completed";
  return { offer, settled, status: settled ? 200 : 500, text: JSON.stringify(done.artifacts) };
}
