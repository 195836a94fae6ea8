/**
 * The official x402 buyer (@x402/fetch + @x402/evm) pays a loopback server guarded by our gate,
 * settled in-process on a real anvil with an EIP-3009 token. Balances are read from the chain.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodePaymentRequired, decodePaymentResponse, encodeBase64Json } from "../../src/x402/headers.ts";
import { createPaymentGate, type PaidOperation, type PaymentGate } from "../../src/x402/gate.ts";
import { freshDatabase, NETWORK, startEvmFixture, USDC, type EvmFixture } from "./evm-fixture.ts";
import { startPaidServer, type PaidServer } from "./paid-server.ts";

const PRICE = "0.005"; // 5000 atomic units
const operation = (_body: Record<string, unknown>, url: URL): PaidOperation => ({
  resource: { url: `http://127.0.0.1${url.pathname}`, description: "Echo", mimeType: "application/json" },
  priceUsd: { anvil: PRICE },
  bazaar: {
    method: "POST",
    input: { text: "hello" },
    output: { echoed: "hello" },
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
});

let fx: EvmFixture;
let gate: PaymentGate;
let server: PaidServer;
let work: (body: Record<string, unknown>) => Promise<unknown> = async (body) => ({ echoed: body.text });

beforeAll(async () => {
  fx = await startEvmFixture();
  gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), pollingIntervalMs: 20 });
  server = startPaidServer({ gate, operation, work: (body) => work(body) });
});

afterAll(async () => {
  await server?.stop();
  await fx?.stop();
});

const post = (f: typeof fetch, body: unknown = { text: "hi" }, headers: Record<string, string> = {}) =>
  f(`${server.url}/v1/echo`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("challenge", () => {
  test("no payment → 402 with PAYMENT-REQUIRED (strict base64, exact amount, domain, bazaar) mirrored in the body", async () => {
    const response = await post(fetch);
    expect(response.status).toBe(402);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const header = response.headers.get("payment-required");
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const decoded = decodePaymentRequired(header ?? "");
    if (!decoded.ok) throw new Error(decoded.reason);
    const required = decoded.value;
    expect(required.x402Version).toBe(2);
    expect(required.accepts).toEqual([
      {
        scheme: "exact",
        network: NETWORK,
        amount: "5000",
        asset: fx.token.address,
        payTo: fx.payTo,
        maxTimeoutSeconds: 300,
        extra: { name: "USD Coin", version: "2" },
      },
    ]);
    expect((required.extensions?.bazaar as { info: { input: { body: unknown } } }).info.input.body).toEqual({ text: "hello" });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.error).toBe("PAYMENT_REQUIRED");
    expect(body.accepts).toEqual(required.accepts);
    expect(body.resource).toEqual(required.resource);
  });
});

describe("official buyer pays", () => {
  test("200 with the result and PAYMENT-RESPONSE; balances move by exactly the price, once; the transaction is on chain", async () => {
    const buyerBefore = await fx.token.balanceOf(fx.buyer.address);
    const payToBefore = await fx.token.balanceOf(fx.payTo);
    const response = await post(fx.officialFetch());
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: unknown; payment_id: string };
    expect(body.result).toEqual({ echoed: "hi" });
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    if (!settlement.ok) throw new Error(settlement.reason);
    expect(settlement.value).toMatchObject({ success: true, network: NETWORK, payer: fx.buyer.address, amount: "5000" });
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(buyerBefore - 5000n);
    expect(await fx.token.balanceOf(fx.payTo)).toBe(payToBefore + 5000n);
    const receipt = await fx.anvil.publicClient.getTransactionReceipt({ hash: settlement.value.transaction as `0x${string}` });
    expect(receipt.status).toBe("success");
    const byTx = gate.lookup(settlement.value.transaction);
    expect(byTx).toMatchObject({ id: body.payment_id, state: "settled", amount: "5000" });
  });
});
