/**
 * The official x402 buyer (@x402/fetch + @x402/evm) pays a loopback server guarded by our gate,
 * settled in-process on a real anvil with an EIP-3009 token. Balances are read from the chain.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodePaymentRequired, decodePaymentResponse, encodeBase64Json } from "../../src/x402/headers.ts";
import { createPaymentGate, type PaidOperation, type PaymentGate } from "../../src/x402/gate.ts";
import type { PaymentPayload, PaymentRequirements } from "../../src/x402/messages.ts";
import { freshDatabase, NETWORK, startEvmFixture, USDC, type EvmFixture } from "./evm-fixture.ts";
import { startPaidServer, type PaidServer } from "./paid-server.ts";

const PRICE = "0.005"; // 5000 atomic units
const operation = (body: Record<string, unknown>, url: URL): PaidOperation => ({
  resource: { url: `http://127.0.0.1${url.pathname}`, description: "Echo", mimeType: "application/json" },
  priceUsd: { anvil: body.premium === true ? "0.01" : PRICE },
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
}, 60_000);

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
    const byTx = await gate.lookup(settlement.value.transaction);
    expect(byTx).toMatchObject({ id: body.payment_id, state: "settled", amount: "5000" });
  });
});

const send = (header: string, body: unknown = { text: "hi" }) => post(fetch, body, { "PAYMENT-SIGNATURE": header });
const decodeSignature = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8")) as PaymentPayload;
async function reasonOf(response: Response): Promise<string | undefined> {
  const decoded = decodePaymentRequired(response.headers.get("payment-required") ?? "");
  if (!decoded.ok) throw new Error(`no PAYMENT-REQUIRED: ${decoded.reason}`);
  return decoded.value.error;
}
async function acceptedOffer(): Promise<PaymentRequirements> {
  const decoded = decodePaymentRequired((await post(fetch)).headers.get("payment-required") ?? "");
  if (!decoded.ok) throw new Error(decoded.reason);
  const offer = decoded.value.accepts[0];
  if (!offer) throw new Error("no offer");
  return offer;
}
const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });

describe("replay and concurrency", () => {
  test("a settled signature replayed is refused with nonce_already_used and moves nothing", async () => {
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const first = await send(header);
    expect(first.status).toBe(200);
    const before = await balances();
    const runs = server.workRuns();
    const replay = await send(header);
    expect(replay.status).toBe(402);
    expect(await reasonOf(replay)).toBe("invalid_exact_evm_nonce_already_used");
    expect(server.workRuns()).toBe(runs);
    expect(await balances()).toEqual(before);
  });

  test("the same signature sent 5 times at once runs the work once and settles once; the others get 409 or 402", async () => {
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const before = await balances();
    const runs = server.workRuns();
    const responses = await Promise.all(Array.from({ length: 5 }, () => send(header)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.every((s) => s === 200 || s === 409 || s === 402)).toBe(true);
    expect(server.workRuns()).toBe(runs + 1);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 5000n);
    expect(after.payTo).toBe(before.payTo + 5000n);
  });

  test("8 different payments from the official buyer at once all settle, each exactly once (settler nonce manager)", async () => {
    const before = await balances();
    const pay = fx.officialFetch();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => post(pay, { text: `n${i}` })));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    const transactions = new Set(responses.map((r) => decodePaymentResponse(r.headers.get("payment-response") ?? "")).map((d) => (d.ok ? d.value.transaction : "")));
    expect(transactions.size).toBe(8);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 8n * 5000n);
    expect(after.payTo).toBe(before.payTo + 8n * 5000n);
  });
});

describe("refused payments (nothing moves, the work never runs)", () => {
  async function expectRefused(header: string, status: number, reason?: string) {
    const before = await balances();
    const runs = server.workRuns();
    const response = await send(header);
    expect(response.status).toBe(status);
    if (reason !== undefined) expect(await reasonOf(response)).toBe(reason);
    expect(server.workRuns()).toBe(runs);
    expect(await balances()).toEqual(before);
    return response;
  }
  const reencode = (payload: PaymentPayload) => encodeBase64Json(payload);

  test("insufficient balance (official buyer with no USDC)", async () => {
    const poor = await fx.anvil.fundedAccount();
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" }, { key: poor.key });
    await expectRefused(header, 402, "invalid_exact_evm_insufficient_balance");
  });

  test("authorization expiring before settlement could land (buyer signed a 10 s window)", async () => {
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" }, { editRequired: (r) => void (r.accepts[0]!.maxTimeoutSeconds = 10) });
    const payload = decodeSignature(header);
    payload.accepted.maxTimeoutSeconds = 300; // so it matches the offer; the signed validBefore stays short
    await expectRefused(reencode(payload), 402, "invalid_exact_evm_payload_authorization_valid_before");
  });

  test("already expired authorization", async () => {
    const accepted = await acceptedOffer();
    const payload = await fx.signedPayment(accepted, { validBefore: String(Math.floor(Date.now() / 1000) - 5) });
    await expectRefused(reencode(payload), 402, "invalid_exact_evm_payload_authorization_valid_before");
  });

  test("not yet valid authorization", async () => {
    const accepted = await acceptedOffer();
    const payload = await fx.signedPayment(accepted, { validAfter: String(Math.floor(Date.now() / 1000) + 3600) });
    await expectRefused(reencode(payload), 402, "invalid_exact_evm_payload_authorization_valid_after");
  });

  test("signed value differs from the price (accepted intact)", async () => {
    const accepted = await acceptedOffer();
    const payload = await fx.signedPayment(accepted, { value: "1" });
    await expectRefused(reencode(payload), 402, "invalid_exact_evm_payload_authorization_value_mismatch");
  });

  test("accepted.amount lowered → no matching requirements", async () => {
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" }, { editRequired: (r) => void (r.accepts[0]!.amount = "1") });
    await expectRefused(header, 402, "No matching payment requirements");
  });

  test("signed for another recipient, accepted restored → recipient mismatch", async () => {
    const other = (await fx.anvil.fundedAccount()).address;
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" }, { editRequired: (r) => void (r.accepts[0]!.payTo = other) });
    const payload = decodeSignature(header);
    payload.accepted.payTo = fx.payTo;
    await expectRefused(reencode(payload), 402, "invalid_exact_evm_recipient_mismatch");
  });

  test("accepted.payTo / asset / network changed → no matching requirements", async () => {
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    for (const edit of [
      (p: PaymentPayload) => void (p.accepted.payTo = "0x000000000000000000000000000000000000dEaD"),
      (p: PaymentPayload) => void (p.accepted.asset = "0x000000000000000000000000000000000000dEaD"),
      (p: PaymentPayload) => void (p.accepted.network = "eip155:8453"),
    ]) {
      const payload = decodeSignature(header);
      edit(payload);
      await expectRefused(reencode(payload), 402, "No matching payment requirements");
    }
  });

  test("signature by another key → invalid signature", async () => {
    const accepted = await acceptedOffer();
    const mallory = await fx.anvil.fundedAccount();
    const payload = await fx.signedPayment(accepted, {}, mallory.key);
    await expectRefused(reencode(payload), 402, "invalid_exact_evm_signature");
  });

  test("payload with an altered nonce (signature no longer matches) → invalid signature", async () => {
    const payload = decodeSignature(await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" }));
    (payload.payload as { authorization: { nonce: string } }).authorization.nonce = `0x${"11".repeat(32)}`;
    await expectRefused(reencode(payload), 402, "invalid_exact_evm_signature");
  });

  test("echoed bazaar extension altered → extension_echo_mismatch", async () => {
    const payload = decodeSignature(await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" }));
    expect(payload.extensions?.bazaar).toBeDefined();
    (payload.extensions!.bazaar as { info: { input: { body: unknown } } }).info.input.body = { text: "tampered" };
    await expectRefused(reencode(payload), 402, "extension_echo_mismatch");
  });

  test("a different body than the one priced re-prices and refuses a cheaper signature", async () => {
    // The server prices per body: here a body field raises the price, so the old signature no longer matches.
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const before = await balances();
    const response = await post(fetch, { text: "hi", premium: true }, { "PAYMENT-SIGNATURE": header });
    expect(response.status).toBe(402);
    expect(await reasonOf(response)).toBe("No matching payment requirements");
    expect(await balances()).toEqual(before);
  });

  test("malformed headers → 400 PAYMENT_HEADER_INVALID (not base64, base64url, not JSON, not a payload)", async () => {
    const valid = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const urlSafe = valid.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    for (const header of ["%%%", urlSafe === valid ? "YWJj-_" : urlSafe, Buffer.from("{nope").toString("base64"), encodeBase64Json({ x402Version: 2, hello: 1 })]) {
      const response = await expectRefused(header, 400);
      expect(((await response.json()) as { error: string }).error).toBe("PAYMENT_HEADER_INVALID");
    }
  });

  test("v1: an X-PAYMENT header, or a v1 payload in PAYMENT-SIGNATURE → 400 naming the v2 header", async () => {
    const v1 = encodeBase64Json({ x402Version: 1, scheme: "exact", network: "base", payload: {} });
    for (const headers of [{ "X-PAYMENT": v1 }, { "PAYMENT-SIGNATURE": v1 }] as Record<string, string>[]) {
      const response = await post(fetch, { text: "hi" }, headers);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe("PAYMENT_VERSION_UNSUPPORTED");
      expect(body.message).toContain("PAYMENT-SIGNATURE");
    }
  });
});

describe("after the work", () => {
  test("work fails → nothing moves, the payment is 'unused', and the same signature still pays later", async () => {
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const nonce = (decodeSignature(header).payload as { authorization: { nonce: string } }).authorization.nonce;
    const before = await balances();
    work = async () => {
      throw new Error("source down");
    };
    try {
      const failed = await send(header);
      expect(failed.status).toBe(502);
      expect(failed.headers.get("payment-response")).toBeNull();
    } finally {
      work = async (body) => ({ echoed: body.text });
    }
    expect(await balances()).toEqual(before);
    expect((await gate.lookup(nonce))?.state).toBe("unused");
    const retried = await send(header);
    expect(retried.status).toBe(200);
    expect((await gate.lookup(nonce))?.state).toBe("settled");
    expect((await balances()).payTo).toBe(before.payTo + 5000n);
  });

  test("buyer drains its balance during the work → 402 with PAYMENT-RESPONSE success:false, result withheld", async () => {
    const drained = await fx.anvil.fundedAccount();
    await fx.token.mint(drained.address, 1n * USDC);
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "secret result" }, { key: drained.key });
    const sink = (await fx.anvil.fundedAccount()).address;
    work = async (body) => {
      await fx.token.transfer(drained.key, sink, 1n * USDC);
      return { echoed: body.text };
    };
    let response: Response;
    try {
      response = await send(header, { text: "secret result" });
    } finally {
      work = async (body) => ({ echoed: body.text });
    }
    expect(response.status).toBe(402);
    const text = await response.text();
    expect(text).not.toContain("secret result");
    expect(JSON.parse(text)).toMatchObject({ error: "SETTLEMENT_FAILED", reason: "invalid_exact_evm_insufficient_balance" });
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    expect(settlement.ok && settlement.value).toMatchObject({ success: false, errorReason: "invalid_exact_evm_insufficient_balance", network: NETWORK });
    const nonce = (decodeSignature(header).payload as { authorization: { nonce: string } }).authorization.nonce;
    expect((await gate.lookup(nonce))?.state).toBe("failed");
    expect(await fx.token.balanceOf(sink)).toBe(1n * USDC);
  });

  test("lookup by transaction id and by authorization nonce (any case); unknown → undefined", async () => {
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const nonce = (decodeSignature(header).payload as { authorization: { nonce: string } }).authorization.nonce;
    const response = await send(header);
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    if (!settlement.ok) throw new Error(settlement.reason);
    const byTx = await gate.lookup(settlement.value.transaction);
    const byNonce = await gate.lookup(nonce.toUpperCase().replace("0X", "0x"));
    expect(byTx).toMatchObject({ state: "settled", transaction: settlement.value.transaction, amount: "5000" });
    expect(byNonce).toEqual(byTx);
    const viaHttp = (await (await fetch(`${server.url}/v1/payments/${nonce}`)).json()) as Record<string, unknown>;
    expect(viaHttp).toMatchObject({ ok: true, state: "settled" });
    expect(await gate.lookup(`0x${"ab".repeat(32)}`)).toBeUndefined();
  });
});
