/**
 * POST /mcp with payments on: the official MCP client (@modelcontextprotocol/sdk) and the official
 * x402 buyer (@x402/core + @x402/evm) pay a tool on anvil through x402's MCP transport
 * (`_meta["x402/payment"]` in, `_meta["x402/payment-response"]` out). The tool is a plugin file
 * dropped into the plugins folder; the attack table charges nothing and releases nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { x402Client } from "@x402/core/client";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "../../src/x402/messages.ts";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { pluginFolder } from "../support/plugin-files.ts";
import { type EvmFixture, NETWORK, USDC } from "../x402/evm-fixture.ts";
import { mcpProbeSource } from "./mcp-probe-plugin.ts";

let stage: PaidStage;
let fx: EvmFixture;
let base: string;
let mcp: Client;
let buyer: x402Client;

beforeAll(async () => {
  stage = await startPaidStage({ plugins: pluginFolder({ "mcp-probe.ts": mcpProbeSource }), loopbackTargets: false });
  ({ fx, base } = stage);
  mcp = await connect();
  buyer = buyerFor(fx.buyer.key);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await stage?.stop();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "mcp-paid-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}

const buyerFor = (key: `0x${string}`): x402Client => stage.officialBuyer(key);

const call = (args: Record<string, unknown>, payment?: unknown, name = "mcp_probe", client = mcp) =>
  client.callTool({ name, arguments: args, ...(payment !== undefined ? { _meta: { "x402/payment": payment } } : {}) }) as Promise<CallToolResult>;

/** The offer of a tool error, as the x402 MCP transport puts it: structuredContent, and its JSON as the text. */
function offerOf(result: CallToolResult): PaymentRequired {
  expect(result.isError).toBe(true);
  const offer = result.structuredContent as unknown as PaymentRequired;
  expect(offer.x402Version).toBe(2);
  expect(offer.accepts.length).toBeGreaterThan(0);
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(offer);
  return offer;
}

const paymentResponseOf = (result: CallToolResult) => (result._meta as Record<string, unknown> | undefined)?.["x402/payment-response"] as SettleResponse | undefined;

async function pay(args: Record<string, unknown>, client = buyer): Promise<PaymentPayload> {
  return (await client.createPaymentPayload(offerOf(await call(args)) as never)) as unknown as PaymentPayload;
}

async function balances() {
  return { buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) };
}

describe("MCP tools with payments on", () => {
  it("lists the dropped plugin file as a tool with a strict name, its schema and its price, and no outputSchema", async () => {
    const { tools } = await mcp.listTools();
    const probe = tools.find((t) => t.name === "mcp_probe");
    expect(probe?.inputSchema.properties).toHaveProperty("copies");
    expect(probe?.description).toContain("x402");
    expect(probe?.outputSchema).toBeUndefined();
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["web_read", "job_quote", "job_status", "payment_status"]));
  });

  it("answers an unpaid call with the PaymentRequired offer for the exact arguments, with bazaar discovery of the MCP tool", async () => {
    const one = offerOf(await call({ text: "hi" }));
    const three = offerOf(await call({ text: "hi", copies: 3 }));
    expect(one.accepts[0]).toMatchObject({ scheme: "exact", network: NETWORK, amount: "1000", payTo: fx.payTo });
    expect(three.accepts[0]!.amount).toBe("3000");
    expect(one.resource?.url).toBe(`${base}/mcp?tool=mcp_probe`);
    expect((one.extensions?.bazaar as { info: { input: unknown } }).info.input).toMatchObject({ type: "mcp", toolName: "mcp_probe", transport: "streamable-http" });
  });

  it("is paid once: the result carries the payment response, the money moves once, and the same payment sent again is refused with a fresh offer", async () => {
    const before = await balances();
    const payment = await pay({ text: "paid", copies: 2 });
    const result = await call({ text: "paid", copies: 2 }, payment);
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ echoed: "paidpaid" });
    const settlement = paymentResponseOf(result);
    expect(settlement).toMatchObject({ success: true, network: NETWORK, amount: "2000" });
    expect(settlement?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 2000n);
    expect(after.payTo).toBe(before.payTo + 2000n);

    const replay = await call({ text: "paid", copies: 2 }, payment);
    expect(offerOf(replay).error).toContain("nonce");
    expect(replay.content.some((c) => "text" in c && c.text.includes("paidpaid"))).toBe(false);
    expect(await balances()).toEqual(after);

    const lookup = await call({ id: settlement!.transaction }, undefined, "payment_status");
    expect(JSON.parse((lookup.content[0] as { text: string }).text)).toMatchObject({ ok: true, payment: { state: "settled" } });
  });

  it("refuses a payment made for cheaper arguments, runs nothing and charges nothing", async () => {
    const before = await balances();
    const cheap = await pay({ text: "x" });
    const refused = await call({ text: "x", copies: 3 }, cheap);
    expect(offerOf(refused).error).toBe("No matching payment requirements");
    expect(paymentResponseOf(refused)).toBeUndefined();
    expect(await balances()).toEqual(before);
  });

  it("charges nothing for a failing tool and releases the authorization, which can then pay a retry", async () => {
    const before = await balances();
    const payment = await pay({ text: "f", fail: true });
    const failed = await call({ text: "f", fail: true }, payment);
    expect(failed.isError).toBe(true);
    expect(JSON.parse((failed.content[0] as { text: string }).text)).toMatchObject({ ok: false, error: "SOURCE_UNREACHABLE" });
    expect(paymentResponseOf(failed)).toBeUndefined();
    expect(await balances()).toEqual(before);
    const retry = await call({ text: "f" }, payment);
    expect(paymentResponseOf(retry)).toMatchObject({ success: true });
    expect((await balances()).buyer).toBe(before.buyer - 1000n);
  });

  it("withholds the result when settlement fails (the buyer drained its balance during the work): no tool content, success:false, nothing charged", async () => {
    const drained = await fx.anvil.fundedAccount();
    await fx.token.mint(drained.address, 1n * USDC);
    const payment = await pay({ text: "secret result", wait_ms: 1500 }, buyerFor(drained.key));
    const payToBefore = await fx.token.balanceOf(fx.payTo);
    const pending = call({ text: "secret result", wait_ms: 1500 }, payment);
    await Bun.sleep(300);
    await fx.token.transfer(drained.key, fx.buyer.address, 1n * USDC);
    const result = await pending;
    const offer = offerOf(result);
    expect(offer.error).toContain("settlement_failed");
    expect(paymentResponseOf(result)).toMatchObject({ success: false });
    expect(JSON.stringify(result)).not.toContain("secret resultsecret");
    expect(JSON.stringify(result.content)).not.toContain("secret result\"");
    expect(await fx.token.balanceOf(fx.payTo)).toBe(payToBefore);
  });

  it("runs and charges one of two concurrent identical payments; the other gets a fresh offer", async () => {
    const before = await balances();
    const payment = await pay({ text: "twice", wait_ms: 300 });
    const second = await connect();
    const results = await Promise.all([call({ text: "twice", wait_ms: 300 }, payment), call({ text: "twice", wait_ms: 300 }, payment, "mcp_probe", second)]);
    await second.close();
    const paid = results.filter((r) => !r.isError);
    expect(paid).toHaveLength(1);
    expect(paymentResponseOf(paid[0]!)).toMatchObject({ success: true });
    offerOf(results.find((r) => r.isError)!);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 1000n);
    expect(after.payTo).toBe(before.payTo + 1000n);
  });

  it("answers a payment in the wrong place or of the wrong shape with the offer again, settling nothing", async () => {
    const before = await balances();
    const payment = await pay({ text: "w" });
    const wrongKey = (await mcp.callTool({ name: "mcp_probe", arguments: { text: "w" }, _meta: { "x402/payments": payment } })) as CallToolResult;
    expect(offerOf(wrongKey).error).toBe("Payment required");
    const asHeader = await call({ text: "w" }, Buffer.from(JSON.stringify(payment)).toString("base64"));
    expect(offerOf(asHeader).error).toContain("payment_header_invalid");
    const noPayload = await call({ text: "w" }, { ...payment, payload: undefined });
    expect(offerOf(noPayload).error).toContain("payment_header_invalid");
    const inArguments = await mcp.callTool({ name: "mcp_probe", arguments: { text: "w", "x402/payment": payment } }).catch((e: Error) => e);
    expect(String(inArguments)).toContain("-32602");
    expect(await balances()).toEqual(before);
    // The untouched payment still pays: nothing above reserved or burned it.
    expect((await call({ text: "w" }, payment)).isError).toBeFalsy();
  });

  it("answers a retry under the same payment identifier (x402 payment-identifier) with the held result and payment response, run and charged once; the identifier on other arguments is refused", async () => {
    const id = `pay_mcp_${crypto.randomUUID().replaceAll("-", "")}`;
    const identified = buyerFor(fx.buyer.key);
    identified.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions ?? {}, id));
    const offer = offerOf(await call({ text: "lost", copies: 2 }));
    expect(offer.extensions).toHaveProperty("payment-identifier");
    const payment = await identified.createPaymentPayload(offer as never);
    expect(payment.extensions).toHaveProperty("payment-identifier");
    const before = await balances();
    const first = await call({ text: "lost", copies: 2 }, payment);
    expect(first.isError).toBeFalsy();
    // The answer was lost on the way back: the buyer sends the same payment again.
    const again = await call({ text: "lost", copies: 2 }, payment);
    expect(again.isError).toBeFalsy();
    expect(JSON.parse((again.content[0] as { text: string }).text)).toEqual(JSON.parse((first.content[0] as { text: string }).text));
    expect(paymentResponseOf(again)).toEqual(paymentResponseOf(first)!);
    expect(paymentResponseOf(again)).toMatchObject({ success: true, amount: "2000" });
    const after = await balances();
    expect(after).toEqual({ buyer: before.buyer - 2000n, payTo: before.payTo + 2000n });
    // The same identifier and price on other arguments is another call: refused, nothing run.
    const other = await call({ text: "lots", copies: 2 }, payment);
    expect(other.isError).toBe(true);
    expect(JSON.stringify(other)).not.toContain("lotslots");
    expect(await balances()).toEqual(after);
  });
});
