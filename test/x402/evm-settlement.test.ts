/**
 * Settlement paths on a real anvil: through a remote facilitator over HTTP (ours on loopback, and
 * the official @x402/core facilitator with @x402/evm), and the indeterminate outcome (transaction
 * sent, not mined in time) → 504 SETTLEMENT_PENDING, a pending receipt, reconciled later.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { resolveNetworks, type ResolvedEvmNetwork } from "../../src/x402/config.ts";
import { createExactEvmMechanism } from "../../src/x402/evm/exact.ts";
import { createLocalFacilitator } from "../../src/x402/facilitators/local.ts";
import { createPaymentGate, type PaidOperation, type PaymentGate } from "../../src/x402/gate.ts";
import { decodePaymentResponse } from "../../src/x402/headers.ts";
import type { PaymentPayload } from "../../src/x402/messages.ts";
import { startFacilitatorServer, type FacilitatorServer } from "../support/facilitator.ts";
import { freshDatabase, NETWORK, startEvmFixture, type EvmFixture } from "./evm-fixture.ts";
import { startPaidServer, type PaidServer } from "./paid-server.ts";

const operation = (_body: Record<string, unknown>, url: URL): PaidOperation => ({
  resource: { url: `http://127.0.0.1${url.pathname}`, description: "Echo", mimeType: "application/json" },
  priceUsd: "0.01",
});
const work = async (body: Record<string, unknown>) => ({ echoed: body.text });

let fx: EvmFixture;
const cleanups: (() => Promise<void>)[] = [];

// Anvil's start and the token's deployment take seconds on a loaded machine (the default hook timeout is 5 s).
beforeAll(async () => {
  fx = await startEvmFixture();
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await fx?.stop();
});

function serve(gate: PaymentGate): PaidServer {
  const server = startPaidServer({ gate, operation, work });
  cleanups.push(() => server.stop());
  return server;
}
const post = (f: typeof fetch, server: PaidServer, headers: Record<string, string> = {}) =>
  f(`${server.url}/v1/echo`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ text: "hi" }) });
const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });

function ourFacilitatorOverHttp(apiKey?: string): FacilitatorServer {
  const network = resolveNetworks(fx.config())[0] as ResolvedEvmNetwork;
  const local = createLocalFacilitator([createExactEvmMechanism({ network, settlementMarginSeconds: 6, confirmationTimeoutMs: 10_000, pollingIntervalMs: 20 })]);
  const server = startFacilitatorServer(
    { verify: (p, r) => local.verify(p, r), settle: (p, r) => local.settle(p, r), supported: () => local.supported() },
    apiKey === undefined ? {} : { apiKey },
  );
  cleanups.push(() => server.stop());
  return server;
}

describe("remote facilitator (HTTP /verify, /settle, /supported)", () => {
  test("ours on loopback: the official buyer pays, the gate verifies and settles over HTTP with auth headers", async () => {
    const facilitator = ourFacilitatorOverHttp("secret-key");
    const gate = createPaymentGate({
      config: fx.config({ facilitator: { url: facilitator.url, headers: { authorization: "Bearer secret-key" } } }, { settlement: "remote", rpcUrl: undefined, settlerPrivateKey: undefined }),
      db: freshDatabase(),
    });
    const server = serve(gate);
    const before = await balances();
    const response = await post(fx.officialFetch(), server);
    expect(response.status).toBe(200);
    expect(facilitator.calls).toEqual(["POST /verify", "POST /settle"]);
    expect(facilitator.authorized()).toBe(2);
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    expect(settlement.ok && settlement.value.success).toBe(true);
    expect(await balances()).toEqual({ buyer: before.buyer - 10_000n, payTo: before.payTo + 10_000n });
  });

  test("ours on loopback: a refused payment carries the facilitator's reason into the fresh challenge", async () => {
    const facilitator = ourFacilitatorOverHttp();
    const gate = createPaymentGate({
      config: fx.config({ facilitator: { url: facilitator.url } }, { settlement: "remote", rpcUrl: undefined, settlerPrivateKey: undefined }),
      db: freshDatabase(),
    });
    const server = serve(gate);
    const poor = await fx.anvil.fundedAccount();
    const response = await post(fx.officialFetch(poor.key), server);
    expect(response.status).toBe(402);
    expect(((await response.json()) as { reason: string }).reason).toBe("invalid_exact_evm_insufficient_balance");
  });

  test("the official x402Facilitator (@x402/core + @x402/evm) on loopback settles what our gate verified", async () => {
    const account = privateKeyToAccount(fx.settler.key);
    const client = createWalletClient({ account, chain: fx.anvil.publicClient.chain, transport: http(fx.anvil.url) }).extend(publicActions);
    const official = new x402Facilitator();
    registerExactEvmScheme(official, { signer: toFacilitatorEvmSigner({ ...client, address: account.address } as never), networks: NETWORK as `${string}:${string}` });
    const facilitator = startFacilitatorServer({
      verify: (p, r) => official.verify(p as never, r as never),
      settle: (p, r) => official.settle(p as never, r as never),
      supported: async () => official.getSupported(),
    });
    cleanups.push(() => facilitator.stop());
    const gate = createPaymentGate({
      config: fx.config({ facilitator: { url: facilitator.url } }, { settlement: "remote", rpcUrl: undefined, settlerPrivateKey: undefined }),
      db: freshDatabase(),
    });
    const server = serve(gate);
    const before = await balances();
    const response = await post(fx.officialFetch(), server);
    expect(response.status).toBe(200);
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    if (!settlement.ok) throw new Error(settlement.reason);
    expect(settlement.value).toMatchObject({ success: true, network: NETWORK });
    expect((await fx.anvil.publicClient.getTransactionReceipt({ hash: settlement.value.transaction as `0x${string}` })).status).toBe("success");
    expect(await balances()).toEqual({ buyer: before.buyer - 10_000n, payTo: before.payTo + 10_000n });
  });

  test("facilitator unreachable at settle (connection refused) → definite failure 402, nothing moved", async () => {
    const facilitator = ourFacilitatorOverHttp();
    const gate = createPaymentGate({
      config: fx.config({ facilitator: { url: facilitator.url } }, { settlement: "remote", rpcUrl: undefined, settlerPrivateKey: undefined }),
      db: freshDatabase(),
    });
    const server = startPaidServer({
      gate,
      operation,
      work: async (body) => {
        await facilitator.stop();
        return work(body);
      },
    });
    cleanups.push(() => server.stop());
    const before = await balances();
    const response = await post(fx.officialFetch(), server);
    expect(response.status).toBe(402);
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    expect(settlement.ok && settlement.value).toMatchObject({ success: false, errorReason: "unexpected_settle_error" });
    expect(await balances()).toEqual(before);
  });
});

describe("indeterminate settlement", () => {
  test("not mined in time → 504 SETTLEMENT_PENDING with the transaction, pending receipt; a replay is refused; reconcile settles it once mined", async () => {
    const gate = createPaymentGate({ config: fx.config({ confirmationTimeoutMs: 300 }), db: freshDatabase(), pollingIntervalMs: 20 });
    const server = serve(gate);
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const nonce = ((JSON.parse(Buffer.from(header, "base64").toString()) as PaymentPayload).payload as { authorization: { nonce: string } }).authorization.nonce;
    const before = await balances();
    await fx.anvil.rpc("evm_setAutomine", [false]);
    let response: Response;
    try {
      response = await post(fetch, server, { "PAYMENT-SIGNATURE": header });
      expect(response.status).toBe(504);
      const body = (await response.json()) as { error: string; transaction: string; payment_id: string };
      expect(body.error).toBe("SETTLEMENT_PENDING");
      expect(body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
      expect(settlement.ok && settlement.value).toMatchObject({ success: false, errorReason: "settlement_pending", transaction: body.transaction });
      expect(await gate.lookup(body.transaction)).toMatchObject({ state: "pending", id: body.payment_id });
      expect((await gate.lookup(nonce))?.state).toBe("pending");

      const replay = await post(fetch, server, { "PAYMENT-SIGNATURE": header });
      expect(replay.status).toBe(402);
      expect(await gate.reconcile()).toEqual({ settled: 0, failed: 0, released: 0, stillPending: 1 });
      expect(await balances()).toEqual(before);

      await fx.anvil.rpc("evm_mine");
      expect(await gate.reconcile()).toEqual({ settled: 1, failed: 0, released: 0, stillPending: 0 });
      expect(await gate.lookup(body.transaction)).toMatchObject({ state: "settled", transaction: body.transaction });
    } finally {
      await fx.anvil.rpc("evm_setAutomine", [true]);
    }
    expect(await balances()).toEqual({ buyer: before.buyer - 10_000n, payTo: before.payTo + 10_000n });
  });

  test("settling the same verified payment twice never sends a second transfer", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), pollingIntervalMs: 20 });
    const server = serve(gate);
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const headers = new Headers({ "PAYMENT-SIGNATURE": header });
    const op = operation({}, new URL(`${server.url}/v1/echo`));
    const authorized = await gate.authorize(headers, op);
    if (authorized.kind !== "verified") throw new Error("not verified");
    const before = await balances();
    const [a, b] = await Promise.all([
      gate.settle(authorized.payment, { requestId: "r1", operationId: "op" }),
      gate.settle(authorized.payment, { requestId: "r2", operationId: "op" }),
    ]);
    expect([a.kind, b.kind].sort()).toEqual(["answer", "settled"]);
    expect(await balances()).toEqual({ buyer: before.buyer - 10_000n, payTo: before.payTo + 10_000n });
  });

  test("verify now, settle later (async job): the reservation blocks reuse until settled", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), pollingIntervalMs: 20 });
    const server = serve(gate);
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const op = operation({}, new URL(`${server.url}/v1/echo`));
    const authorized = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": header }), op);
    if (authorized.kind !== "verified") throw new Error("not verified");
    // The job is queued; its payment travels as JSON.
    const stored = JSON.parse(JSON.stringify(authorized.payment)) as typeof authorized.payment;
    const again = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": header }), op);
    expect(again.kind === "answer" && again.answer.status).toBe(409);
    expect((await gate.lookup(stored.nonce))?.state).toBe("in_flight");
    const settled = await gate.settle(stored, { requestId: "job_1", operationId: "job.run" });
    expect(settled.kind).toBe("settled");
    if (settled.kind === "settled") expect(settled.receipt).toMatchObject({ state: "settled", requestId: "job_1", operationId: "job.run", amount: "10000" });
  });

  test("reconcile releases a reservation whose work never finished once its authorization expired", async () => {
    let clock = Date.now();
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), now: () => new Date(clock) });
    const server = serve(gate);
    const header = await fx.capturePayment(`${server.url}/v1/echo`, { text: "hi" });
    const authorized = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": header }), operation({}, new URL(`${server.url}/v1/echo`)));
    if (authorized.kind !== "verified") throw new Error("not verified");
    expect(await gate.reconcile()).toMatchObject({ released: 0 });
    expect((await gate.lookup(authorized.payment.nonce))?.state).toBe("in_flight");
    clock += 301_000; // past validBefore (now + maxTimeoutSeconds)
    expect(await gate.reconcile()).toMatchObject({ released: 1 });
    expect((await gate.lookup(authorized.payment.nonce))?.state).toBe("unused");
  });
});
