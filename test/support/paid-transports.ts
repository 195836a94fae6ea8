/**
 * @module test/support/paid-transports — one paid call over HTTP, MCP and A2A with the official clients:
 * each transport asks for an offer for exact input, then pays it (for A2A, on the offer's task) and
 * says what came back. Used by the transport table (test/paid-transports.test.ts) and the plugins
 * tested on every transport (test/plugins/web-screenshot.test.ts).
 */
import { expect } from "bun:test";
import { Role, TaskState } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "../../src/x402/messages.ts";

/** What a paying call came back with, whatever the transport. */
export interface Outcome {
  readonly settled: boolean;
  /** Whether the answer carries the work's result (HTTP: a 200 body; MCP: tool content; A2A: a task not failed, or an artifact). */
  readonly released: boolean;
  /** The whole answer as text, to look for a released result. */
  readonly answer: string;
  /** The error code the transport carried, when it names one. */
  readonly error?: string;
  /** The work's result as JSON, when one was released. */
  readonly result?: Record<string, unknown>;
}

/** An offer for exact input, and the paying call that goes with it (for A2A, on the offer's task). */
export interface Order {
  readonly offer: PaymentRequired;
  pay(payload: PaymentPayload): Promise<Outcome>;
}

export interface Transport {
  readonly name: string;
  order(input: Record<string, unknown>): Promise<Order>;
}

/** What is sold: its HTTP route, MCP tool and A2A skill. */
export interface Sold {
  readonly path: string;
  readonly tool: string;
  readonly skill: string;
}

export interface PaidTransports {
  readonly http: Transport;
  readonly mcp: Transport;
  readonly a2a: Transport;
  close(): Promise<void>;
}

/** The `error` field of an answer that is a JSON object, if any. */
function errorIn(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: string }).error;
  } catch {
    return undefined;
  }
}

function jsonIn(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function connectPaidTransports(base: string, buyer: x402Client, sold: Sold): Promise<PaidTransports> {
  const http = new x402HTTPClient(buyer);
  const mcp = new Client({ name: "paid-transports-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  const a2a = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a` });

  const overHttp: Transport = {
    name: "HTTP",
    async order(input) {
      const post = (headers: Record<string, string>) => fetch(`${base}${sold.path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(input) });
      const unpaid = await post({});
      expect(unpaid.status).toBe(402);
      const offer = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json()) as unknown as PaymentRequired;
      return {
        offer,
        async pay(payload) {
          const res = await post(http.encodePaymentSignatureHeader(payload as never));
          const answer = await res.text();
          const settled = res.status === 200 && res.headers.get("payment-response") !== null && (http.getPaymentSettleResponse((name) => res.headers.get(name)) as unknown as SettleResponse).success;
          return { settled, released: res.status === 200, answer, error: errorIn(answer), ...(res.status === 200 ? { result: jsonIn(answer) } : {}) };
        },
      };
    },
  };

  const overMcp: Transport = {
    name: "MCP",
    async order(input) {
      const call = (meta?: Record<string, unknown>) => mcp.callTool({ name: sold.tool, arguments: input, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;
      const unpaid = await call();
      expect(unpaid.isError).toBe(true);
      return {
        offer: unpaid.structuredContent as unknown as PaymentRequired,
        async pay(payload) {
          const result = await call({ "x402/payment": payload });
          const response = (result._meta as Record<string, unknown> | undefined)?.["x402/payment-response"] as SettleResponse | undefined;
          const text = (result.content[0] as { text?: string } | undefined)?.text ?? "";
          return {
            settled: !result.isError && response?.success === true,
            released: !result.isError,
            answer: JSON.stringify(result),
            error: result.isError ? errorIn(text) : undefined,
            ...(result.isError ? {} : { result: (result.structuredContent as Record<string, unknown> | undefined) ?? jsonIn(text) }),
          };
        },
      };
    },
  };

  type Task = Awaited<ReturnType<LegacyJsonRpcTransport["getTask"]>>;
  const a2aSend = async (content: { $case: "data"; value: Record<string, unknown> } | { $case: "text"; value: string }, taskId = "", metadata?: Record<string, unknown>) =>
    (await a2a.sendMessage({
      tenant: "",
      message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts: [{ content, metadata: undefined, filename: "", mediaType: "" }], metadata, extensions: [], referenceTaskIds: [] },
      configuration: undefined,
      metadata: undefined,
    })) as Task;
  const a2aMeta = (task: Task) => (task.status?.message?.metadata ?? {}) as Record<string, unknown>;
  /** The first data part of the task's artifacts. */
  const artifactData = (task: Task) => {
    for (const artifact of task.artifacts) {
      for (const part of artifact.parts) if (part.content?.$case === "data") return part.content.value as Record<string, unknown>;
    }
    return undefined;
  };

  const overA2a: Transport = {
    name: "A2A",
    async order(input) {
      const task = await a2aSend({ $case: "data", value: { skill: sold.skill, ...input } });
      expect(a2aMeta(task)["x402.payment.status"]).toBe("payment-required");
      return {
        offer: a2aMeta(task)["x402.payment.required"] as PaymentRequired,
        async pay(payload) {
          const done = await a2aSend({ $case: "text", value: "payment" }, task.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload });
          const meta = a2aMeta(done);
          const settled = meta["x402.payment.status"] === "payment-completed" && (meta["x402.payment.receipts"] as SettleResponse[] | undefined)?.[0]?.success === true;
          const released = done.status?.state !== TaskState.TASK_STATE_FAILED || done.artifacts.length > 0 || meta["x402.payment.status"] !== "payment-failed";
          const data = artifactData(done);
          return { settled, released, answer: JSON.stringify(done), error: meta["x402.payment.error"] as string | undefined, ...(data ? { result: data } : {}) };
        },
      };
    },
  };

  return { http: overHttp, mcp: overMcp, a2a: overA2a, close: () => mcp.close() };
}
