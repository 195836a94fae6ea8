/**
 * One paid scenario table run through the three transports over the one paid-call core, with the
 * official clients on anvil: HTTP (the x402 HTTP client's PAYMENT-SIGNATURE header), MCP (the MCP
 * SDK client, `_meta["x402/payment"]`) and A2A (the A2A SDK client, `x402.payment.payload` on the
 * task that made the offer). Each transport: the same offer for the same input, paid once with the
 * money moved once, a replayed payment refused, a payment for cheaper input refused, failing
 * work never charged, a failed settlement releasing nothing, and concurrent identical payments
 * charged once. The transport files (test/mcp/, test/a2a/, test/flows/) test the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Role, TaskState } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "../src/x402/messages.ts";
import { mcpProbeSource } from "./mcp/mcp-probe-plugin.ts";
import { type PaidStage, startPaidStage } from "./support/paid-stage.ts";
import { pluginFolder } from "./support/plugin-files.ts";
import { type EvmFixture, NETWORK, USDC } from "./x402/evm-fixture.ts";

/** What a paying call came back with, whatever the transport. */
interface Outcome {
  readonly settled: boolean;
  /** Whether the answer carries the work's result (HTTP: a 200 body; MCP: tool content; A2A: a task not failed, or an artifact). */
  readonly released: boolean;
  /** The whole answer as text, to look for a released result. */
  readonly answer: string;
  /** The error code the transport carried, when it names one. */
  readonly error?: string;
}

/** An offer for exact input, and the paying call that goes with it (for A2A, on the offer's task). */
interface Order {
  readonly offer: PaymentRequired;
  pay(payload: PaymentPayload): Promise<Outcome>;
}

interface Transport {
  readonly name: string;
  order(input: Record<string, unknown>): Promise<Order>;
}

let stage: PaidStage;
let fx: EvmFixture;
let base: string;
let mcp: Client;
let a2a: LegacyJsonRpcTransport;
let buyer: x402Client;
let http: x402HTTPClient;

beforeAll(async () => {
  stage = await startPaidStage({ plugins: pluginFolder({ "mcp-probe.ts": mcpProbeSource }), args: ["--rate-limit-per-min", "10000"], loopbackTargets: false });
  ({ fx, base } = stage);
  mcp = new Client({ name: "paid-transports-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  a2a = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a` });
  buyer = buyerFor(fx.buyer.key);
  http = new x402HTTPClient(buyer);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await stage?.stop();
});

const buyerFor = (key: `0x${string}`): x402Client => stage.officialBuyer(key);

/** The `error` field of an answer that is a JSON object, if any. */
function errorIn(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: string }).error;
  } catch {
    return undefined;
  }
}

const overHttp: Transport = {
  name: "HTTP",
  async order(input) {
    const post = (headers: Record<string, string>) => fetch(`${base}/v1/mcp-probe`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(input) });
    const unpaid = await post({});
    expect(unpaid.status).toBe(402);
    const offer = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json()) as unknown as PaymentRequired;
    return {
      offer,
      async pay(payload) {
        const res = await post(http.encodePaymentSignatureHeader(payload as never));
        const answer = await res.text();
        const settled = res.status === 200 && res.headers.get("payment-response") !== null && (http.getPaymentSettleResponse((name) => res.headers.get(name)) as unknown as SettleResponse).success;
        return { settled, released: res.status === 200, answer, error: errorIn(answer) };
      },
    };
  },
};

const overMcp: Transport = {
  name: "MCP",
  async order(input) {
    const call = (meta?: Record<string, unknown>) => mcp.callTool({ name: "mcp_probe", arguments: input, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;
    const unpaid = await call();
    expect(unpaid.isError).toBe(true);
    return {
      offer: unpaid.structuredContent as unknown as PaymentRequired,
      async pay(payload) {
        const result = await call({ "x402/payment": payload });
        const response = (result._meta as Record<string, unknown> | undefined)?.["x402/payment-response"] as SettleResponse | undefined;
        const text = (result.content[0] as { text?: string } | undefined)?.text ?? "";
        return { settled: !result.isError && response?.success === true, released: !result.isError, answer: JSON.stringify(result), error: result.isError ? errorIn(text) : undefined };
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

const overA2a: Transport = {
  name: "A2A",
  async order(input) {
    const task = await a2aSend({ $case: "data", value: { skill: "mcp.probe", ...input } });
    expect(a2aMeta(task)["x402.payment.status"]).toBe("payment-required");
    return {
      offer: a2aMeta(task)["x402.payment.required"] as PaymentRequired,
      async pay(payload) {
        const done = await a2aSend({ $case: "text", value: "payment" }, task.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload });
        const meta = a2aMeta(done);
        const settled = meta["x402.payment.status"] === "payment-completed" && (meta["x402.payment.receipts"] as SettleResponse[] | undefined)?.[0]?.success === true;
        const released = done.status?.state !== TaskState.TASK_STATE_FAILED || done.artifacts.length > 0 || meta["x402.payment.status"] !== "payment-failed";
        return { settled, released, answer: JSON.stringify(done), error: meta["x402.payment.error"] as string | undefined };
      },
    };
  },
};

const sign = async (offer: PaymentRequired, signer = buyer) => (await signer.createPaymentPayload(offer as never)) as unknown as PaymentPayload;
const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });

describe.each([overHttp, overMcp, overA2a])("paid mcp.probe over $name", (transport) => {
  it("offers the exact price for the input, the same on every transport", async () => {
    const one = await transport.order({ text: "hi" });
    const three = await transport.order({ text: "hi", copies: 3 });
    expect(one.offer.x402Version).toBe(2);
    expect(one.offer.accepts[0]).toMatchObject({ scheme: "exact", network: NETWORK, amount: "1000", payTo: fx.payTo });
    expect(three.offer.accepts[0]!.amount).toBe("3000");
  });

  it("is paid once: the result is released, the money moves once, and the same payment sent again is refused", async () => {
    const before = await balances();
    const input = { text: `${transport.name}-paid`, copies: 2 };
    const order = await transport.order(input);
    const payload = await sign(order.offer);
    const paid = await order.pay(payload);
    expect(paid.settled).toBe(true);
    expect(paid.answer).toContain(`${transport.name}-paid${transport.name}-paid`);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 2000n);
    expect(after.payTo).toBe(before.payTo + 2000n);

    const replay = await (await transport.order(input)).pay(payload);
    expect(replay.settled).toBe(false);
    expect(replay.answer).not.toContain(`${transport.name}-paid${transport.name}-paid`);
    expect(await balances()).toEqual(after);
  });

  it("refuses a payment signed for cheaper input: nothing runs, nothing is charged", async () => {
    const before = await balances();
    const cheap = await transport.order({ text: `${transport.name}-cheap` });
    const dear = await transport.order({ text: `${transport.name}-cheap`, copies: 3 });
    const refused = await dear.pay(await sign(cheap.offer));
    expect(refused.settled).toBe(false);
    expect(refused.answer).not.toContain(`${transport.name}-cheap${transport.name}-cheap`);
    expect(await balances()).toEqual(before);
  });

  it("never charges failing work: the skill's error comes back, no payment response, the balances unchanged", async () => {
    const before = await balances();
    const order = await transport.order({ text: "f", fail: true });
    const failed = await order.pay(await sign(order.offer));
    expect(failed.settled).toBe(false);
    expect(failed.error).toBe("SOURCE_UNREACHABLE");
    expect(await balances()).toEqual(before);
  });

  it("releases nothing and charges nothing when settlement fails (the buyer drains its balance while the work runs)", async () => {
    const drained = await fx.anvil.fundedAccount();
    await fx.token.mint(drained.address, 1n * USDC);
    const input = { text: `${transport.name}-secret`, copies: 2, wait_ms: 1500 };
    const order = await transport.order(input);
    const payload = await sign(order.offer, buyerFor(drained.key));
    const before = await balances();
    const pending = order.pay(payload);
    await Bun.sleep(300);
    await fx.token.transfer(drained.key, fx.buyer.address, 1n * USDC);
    const failed = await pending;
    expect(failed.settled).toBe(false);
    expect(failed.released).toBe(false);
    expect(failed.answer).not.toContain(`${transport.name}-secret${transport.name}-secret`);
    expect(await fx.token.balanceOf(drained.address)).toBe(0n);
    expect(await balances()).toEqual({ buyer: before.buyer + 1n * USDC, payTo: before.payTo });
  });

  it("charges once for concurrent identical payments: exactly one succeeds, the other is refused as in flight before any work, the money moves once", async () => {
    const before = await balances();
    const input = { text: `${transport.name}-twice`, wait_ms: 1000 };
    const first = await transport.order(input);
    const second = await transport.order(input);
    const payload = await sign(first.offer);
    // An A2A payment names its task's offer (issue 40): the copy for the second task is rewritten to
    // name that task's (the field is not signed), so it reaches the reservation.
    const copy = transport.name === "A2A" ? { ...payload, resource: second.offer.resource } : payload;
    const outcomes = await Promise.all([first.pay(payload), second.pay(copy as PaymentPayload)]);
    expect(outcomes.filter((o) => o.settled)).toHaveLength(1);
    expect(outcomes.filter((o) => o.released)).toHaveLength(1);
    // Refused by the reservation, not by a settlement that failed after running the work again.
    expect(outcomes.find((o) => !o.settled)!.error).toMatch(/^payment_in_flight$/i);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 1000n);
    expect(after.payTo).toBe(before.payTo + 1000n);
  });
});
