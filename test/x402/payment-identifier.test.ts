/**
 * payment-identifier: the declaration the official client recognises, the in-memory held results
 * (TTL, byte budget), and the gate on a real anvil: a retry under the same identifier is answered
 * from memory and the chain shows one transfer; another call's identifier, another payer or a
 * forged signature never reach the held result; nothing about it is written to SQLite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendPaymentIdentifierToExtensions, isPaymentIdentifierExtension, validatePaymentIdentifier } from "@x402/extensions/payment-identifier";
import { x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { parseAbiItem, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { openDatabase } from "../../src/store/db.ts";
import { receiptMigrations } from "../../src/store/receipts.ts";
import { createPaymentGate, type HttpAnswer, type PaidOperation, type PaymentGate } from "../../src/x402/gate.ts";
import { decodeBase64Json, decodePaymentResponse, encodeBase64Json } from "../../src/x402/headers.ts";
import { createReplayCache, declarePaymentIdentifier, digestJson, PAYMENT_IDENTIFIER, readPaymentIdentifier } from "../../src/x402/payment-identifier.ts";
import type { PaymentPayload, PaymentRequired } from "../../src/x402/messages.ts";
import { scanSqlite } from "../flows/sqlite-scan.ts";
import { freshDatabase, NETWORK, startEvmFixture, USDC, type EvmFixture } from "./evm-fixture.ts";

describe("declaration and identifier", () => {
  test("the official client recognises our declaration and fills in its id; we read it back", () => {
    const declared = declarePaymentIdentifier();
    expect(isPaymentIdentifierExtension(declared)).toBe(true);
    const extensions: Record<string, unknown> = { [PAYMENT_IDENTIFIER]: structuredClone(declared) };
    appendPaymentIdentifierToExtensions(extensions, "pay_0123456789abcdef");
    expect(validatePaymentIdentifier(extensions[PAYMENT_IDENTIFIER])).toEqual({ valid: true });
    expect(readPaymentIdentifier(extensions)).toEqual({ ok: true, id: "pay_0123456789abcdef" });
  });

  test("no extension or no id is fine; a malformed id is refused", () => {
    expect(readPaymentIdentifier(undefined)).toEqual({ ok: true, id: null });
    expect(readPaymentIdentifier({ [PAYMENT_IDENTIFIER]: declarePaymentIdentifier() })).toEqual({ ok: true, id: null });
    for (const id of ["short_id", "pay_0123456789abcdef!", "x".repeat(129), 42]) {
      expect(readPaymentIdentifier({ [PAYMENT_IDENTIFIER]: { info: { required: false, id } } }).ok).toBe(false);
    }
    expect(readPaymentIdentifier({ [PAYMENT_IDENTIFIER]: "pay_0123456789abcdef" }).ok).toBe(false);
  });

  test("body digests ignore key order and see every value", () => {
    expect(digestJson({ a: 1, b: { c: [1, 2], d: "x" } })).toBe(digestJson({ b: { d: "x", c: [1, 2] }, a: 1 }));
    expect(digestJson({ a: 1, b: { c: [1, 2] } })).not.toBe(digestJson({ a: 1, b: { c: [2, 1] } }));
  });
});

describe("held results in memory", () => {
  const answer = (body: unknown): HttpAnswer => ({ status: 200, headers: { "PAYMENT-RESPONSE": "eyJ9" }, body });

  test("claim → in flight → settled → held; another fingerprint is a conflict; abandon frees the id", () => {
    const cache = createReplayCache({ now: () => 0 });
    expect(cache.claim("pay_id_000000000001", "fp1", "t1")).toEqual({ kind: "claimed" });
    expect(cache.claim("pay_id_000000000001", "fp1", "t2")).toEqual({ kind: "in_flight", token: "t1" });
    expect(cache.claim("pay_id_000000000001", "fp2", "t2")).toEqual({ kind: "conflict" });
    expect(cache.hold("pay_id_000000000001", "t1", answer({ a: 1 }))).toBe(false); // not settled yet
    cache.settled("pay_id_000000000001", "t1", "payload1", { "PAYMENT-RESPONSE": "eyJ9" });
    expect(cache.claim("pay_id_000000000001", "fp1", "t2")).toEqual({ kind: "in_flight", token: "t1" });
    expect(cache.hold("pay_id_000000000001", "t2", answer({ a: 1 }))).toBe(false); // another call's token
    expect(cache.hold("pay_id_000000000001", "t1", answer({ a: 1 }))).toBe(true);
    expect(cache.claim("pay_id_000000000001", "fp1", "t3")).toEqual({ kind: "held", answer: answer({ a: 1 }) });
    expect(cache.peek("pay_id_000000000001", "fp1", "payload1")).toEqual({ kind: "held", answer: answer({ a: 1 }) });
    expect(cache.peek("pay_id_000000000001", "fp1", "another payload")).toBeUndefined();
    expect(cache.peek("pay_id_000000000001", "fp2", "payload1")).toEqual({ kind: "conflict" });

    expect(cache.claim("pay_id_000000000002", "fp1", "t4")).toEqual({ kind: "claimed" });
    cache.abandon("pay_id_000000000002", "t4");
    expect(cache.claim("pay_id_000000000002", "fp9", "t5")).toEqual({ kind: "claimed" });
  });

  test("a held result is gone after its TTL (injected clock)", () => {
    let clock = 1_000_000;
    const cache = createReplayCache({ ttlMs: 600_000, now: () => clock });
    cache.claim("pay_ttl_00000000001", "fp", "t1");
    cache.settled("pay_ttl_00000000001", "t1", "payload", {});
    cache.hold("pay_ttl_00000000001", "t1", answer({ page: "text" }));
    clock += 599_999;
    expect(cache.claim("pay_ttl_00000000001", "fp", "t2").kind).toBe("held");
    clock += 1;
    expect(cache.size()).toEqual({ entries: 0, bytes: 0 });
    expect(cache.peek("pay_ttl_00000000001", "fp", "payload")).toBeUndefined();
    expect(cache.claim("pay_ttl_00000000001", "fp", "t2")).toEqual({ kind: "claimed" });
  });

  test("bytes are capped: a result too large is not kept, and the oldest results give way to new ones", () => {
    const cache = createReplayCache({ maxBytes: 4_000, maxResultBytes: 1_500, now: () => 0 });
    const hold = (id: string, text: string) => {
      cache.claim(id, "fp", id);
      cache.settled(id, id, "payload", { "PAYMENT-RESPONSE": "settled" });
      return cache.hold(id, id, answer({ text }));
    };
    expect(hold("pay_big_00000000001", "x".repeat(2_000))).toBe(false);
    expect(cache.claim("pay_big_00000000001", "fp", "other")).toEqual({ kind: "not_held", paymentHeaders: { "PAYMENT-RESPONSE": "settled" } });
    for (let i = 0; i < 4; i++) expect(hold(`pay_fit_0000000000${i}`, "y".repeat(1_000))).toBe(true);
    expect(cache.size().bytes).toBeLessThanOrEqual(4_000);
    expect(cache.claim("pay_fit_00000000000", "fp", "other").kind).toBe("not_held"); // the oldest gave way
    expect(cache.claim("pay_fit_00000000003", "fp", "other").kind).toBe("held");
  });
});

const operation = (body: Record<string, unknown>): PaidOperation => ({
  resource: { url: "http://127.0.0.1/v1/echo", description: "Echo", mimeType: "application/json" },
  priceUsd: { anvil: "0.005" },
  requestDigest: digestJson(body),
});
const CONTEXT = { requestId: "req_test", operationId: "test.echo" };
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

let fx: EvmFixture;
let otherBuyer: { key: Hex; address: `0x${string}` };

beforeAll(async () => {
  fx = await startEvmFixture();
  otherBuyer = await fx.anvil.fundedAccount();
  await fx.token.mint(otherBuyer.address, 10n * USDC);
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

/** The official buyer's PAYMENT-SIGNATURE for this 402, carrying `id` through the official helper. */
async function officialSignature(required: PaymentRequired, id: string | undefined, key: Hex = fx.buyer.key): Promise<string> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(key), networks: [NETWORK] });
  client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
  if (id) client.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions ?? {}, id));
  return encodeBase64Json(await client.createPaymentPayload(structuredClone(required) as never));
}

/** One paid call the way the HTTP layer runs it: authorize → work → settle → hold. */
function caller(gate: PaymentGate) {
  let runs = 0;
  return {
    runs: () => runs,
    async call(body: Record<string, unknown>, signature: string): Promise<HttpAnswer> {
      const authorized = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": signature }), operation(body), CONTEXT);
      if (authorized.kind === "answer") return authorized.answer;
      runs++;
      const result = { echoed: body.text, run: runs };
      const settled = await gate.settle(authorized.payment, CONTEXT);
      if (settled.kind === "answer") return settled.answer;
      const answer = { status: 200, headers: settled.headers, body: result };
      gate.hold(authorized.payment, answer);
      return answer;
    },
  };
}

const transfersFrom = async (from: `0x${string}`) =>
  (await fx.anvil.publicClient.getLogs({ address: fx.token.address, event: transferEvent, args: { from }, fromBlock: 0n })).length;
const errorOf = (answer: HttpAnswer) => (answer.body as { error?: string }).error;
const nonceOf = (signature: string) => {
  const decoded = decodeBase64Json(signature);
  if (!decoded.ok) throw new Error(decoded.reason);
  return ((decoded.value as PaymentPayload).payload as { authorization: { nonce: Hex } }).authorization.nonce;
};

describe("the gate with payment-identifier (official buyer, anvil)", () => {
  test("the 402 declares payment-identifier only for replayable operations", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase() });
    const replayable = await gate.challenge(operation({ text: "a" }));
    expect(replayable.extensions?.[PAYMENT_IDENTIFIER]).toEqual(declarePaymentIdentifier());
    const { requestDigest: _digest, ...plain } = operation({ text: "a" });
    expect((await gate.challenge(plain)).extensions?.[PAYMENT_IDENTIFIER]).toBeUndefined();
  });

  test("a lost response: the retry (fresh authorization or the same one) gets the held result, and one transfer happened", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), pollingIntervalMs: 20 });
    const { call, runs } = caller(gate);
    const body = { text: "lost response" };
    const required = await gate.challenge(operation(body));
    const id = "pay_lost_response_0001";
    const transfersBefore = await transfersFrom(fx.buyer.address);
    const balanceBefore = await fx.token.balanceOf(fx.buyer.address);

    const firstSignature = await officialSignature(required, id);
    const first = await call(body, firstSignature);
    expect(first.status).toBe(200); // ...and the buyer never sees it

    const freshSignature = await officialSignature(required, id); // the SDK re-signs: a new nonce, the same id
    expect(nonceOf(freshSignature)).not.toBe(nonceOf(firstSignature));
    const retry = await call(body, freshSignature);
    expect(retry).toEqual(first);
    const resent = await call(body, firstSignature); // the very same header again
    expect(resent).toEqual(first);

    expect(runs()).toBe(1);
    expect(await transfersFrom(fx.buyer.address)).toBe(transfersBefore + 1);
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(balanceBefore - 5000n);
    expect(await fx.token.authorizationState(fx.buyer.address, nonceOf(freshSignature))).toBe(false);
    const settlement = decodePaymentResponse(retry.headers["PAYMENT-RESPONSE"] ?? "");
    expect(settlement.ok && settlement.value.success).toBe(true);
    // The unused fresh authorization stays free for the buyer: it was never reserved.
    expect(await gate.lookup(nonceOf(freshSignature))).toBeUndefined();
  });

  test("the same identifier for another body, or from another payer, is a 409 conflict and charges nothing", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), pollingIntervalMs: 20 });
    const { call, runs } = caller(gate);
    const id = "pay_conflict_00000001";
    const body = { text: "original" };
    expect((await call(body, await officialSignature(await gate.challenge(operation(body)), id))).status).toBe(200);
    const buyerBefore = await fx.token.balanceOf(fx.buyer.address);
    const otherBefore = await fx.token.balanceOf(otherBuyer.address);

    const changed = { text: "changed" };
    const otherBody = await call(changed, await officialSignature(await gate.challenge(operation(changed)), id));
    expect(otherBody.status).toBe(409);
    expect(errorOf(otherBody)).toBe("PAYMENT_ID_CONFLICT");

    // Knowing someone's identifier and body is not enough: the held result is bound to the payer.
    const otherPayer = await call(body, await officialSignature(await gate.challenge(operation(body)), id, otherBuyer.key));
    expect(otherPayer.status).toBe(409);
    expect(errorOf(otherPayer)).toBe("PAYMENT_ID_CONFLICT");

    expect(runs()).toBe(1);
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(buyerBefore);
    expect(await fx.token.balanceOf(otherBuyer.address)).toBe(otherBefore);
  });

  test("a forged authorization in the payer's name with the right identifier and body is verified, and refused", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), pollingIntervalMs: 20 });
    const { call } = caller(gate);
    const id = "pay_forged_0000000001";
    const body = { text: "secret result" };
    const required = await gate.challenge(operation(body));
    expect((await call(body, await officialSignature(required, id))).status).toBe(200);

    // The payload names the buyer as payer but is signed by someone else.
    const genuine = decodeBase64Json(await officialSignature(required, id));
    if (!genuine.ok) throw new Error(genuine.reason);
    const forgedPayload = genuine.value as PaymentPayload;
    const signedByOther = decodeBase64Json(await officialSignature(required, id, otherBuyer.key));
    if (!signedByOther.ok) throw new Error(signedByOther.reason);
    const otherAuth = (signedByOther.value as PaymentPayload).payload as { signature: Hex; authorization: Record<string, string> };
    forgedPayload.payload = { signature: otherAuth.signature, authorization: { ...otherAuth.authorization, from: fx.buyer.address } };
    const forged = await call(body, encodeBase64Json(forgedPayload));
    expect(forged.status).toBe(402);
    expect((forged.body as { echoed?: unknown }).echoed).toBeUndefined();
  });

  test("while the first call is in flight the retry gets 409; once the work fails and is released the identifier is free", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), pollingIntervalMs: 20 });
    const id = "pay_in_flight_0000001";
    const body = { text: "slow" };
    const required = await gate.challenge(operation(body));
    const first = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": await officialSignature(required, id) }), operation(body), CONTEXT);
    if (first.kind !== "verified") throw new Error("first payment refused");
    const second = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": await officialSignature(required, id) }), operation(body), CONTEXT);
    expect(second.kind === "answer" && second.answer.status).toBe(409);
    expect(second.kind === "answer" && errorOf(second.answer)).toBe("PAYMENT_IN_FLIGHT");
    expect(second.kind === "answer" && (second.answer.body as { payment_id: string }).payment_id).toBe(first.payment.receiptId);

    await gate.release(first.payment); // the work failed: nothing settled
    const third = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": await officialSignature(required, id) }), operation(body), CONTEXT);
    expect(third.kind).toBe("verified");
    if (third.kind === "verified") await gate.release(third.payment);
  });

  test("a malformed identifier is a 400 before anything is verified", async () => {
    const gate = createPaymentGate({ config: fx.config(), db: freshDatabase() });
    const body = { text: "bad id" };
    const required = await gate.challenge(operation(body));
    const decoded = decodeBase64Json(await officialSignature(required, "pay_good_identifier_1"));
    if (!decoded.ok) throw new Error(decoded.reason);
    const payload = decoded.value as PaymentPayload;
    (payload.extensions![PAYMENT_IDENTIFIER] as { info: { id: string } }).info.id = "bad id!";
    const answer = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": encodeBase64Json(payload) }), operation(body), CONTEXT);
    expect(answer.kind === "answer" && errorOf(answer.answer)).toBe("PAYMENT_ID_INVALID");
  });

  test("after the TTL the held result is gone (injected clock): the retry is a new payment, and nothing was written to SQLite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollbooth-payid-"));
    try {
      const path = join(dir, "receipts.db");
      const db = openDatabase({ path, migrations: receiptMigrations });
      let offsetMs = 0;
      const gate = createPaymentGate({
        config: fx.config({ maxTimeoutSeconds: 3600 }),
        db,
        now: () => new Date(Date.now() + offsetMs),
        pollingIntervalMs: 20,
        replay: { ttlMs: 600_000 },
      });
      const { call, runs } = caller(gate);
      const id = "pay_ttl_SQLITEPROBE_7f3a";
      const body = { text: "BODYPROBE-31c9" };
      const required = await gate.challenge(operation(body));
      const first = await call(body, await officialSignature(required, id));
      expect(first.status).toBe(200);
      offsetMs = 599_000;
      expect(await call(body, await officialSignature(required, id))).toEqual(first);
      expect(runs()).toBe(1);

      // The payer, the amount and the receipt are on disk; the identifier, body and result are not.
      const receiptId = (db.query("SELECT id FROM payment_receipts").all() as { id: string }[]).map((r) => r.id);
      expect(receiptId).toHaveLength(1);
      const scan = scanSqlite(db, path, [receiptId[0]!, fx.buyer.address, id, "BODYPROBE-31c9", digestJson(body)]);
      expect(Object.values(scan.inRows).flat()).toContain(receiptId[0]!);
      expect(Object.values(scan.inRows).flat()).toContain(fx.buyer.address);
      expect(scan.inFiles).toContain(receiptId[0]!); // the raw scan sees what is on disk
      const secrets = [id, "BODYPROBE-31c9", digestJson(body)];
      expect(Object.values(scan.inRows).flat().filter((s) => secrets.includes(s))).toEqual([]);
      expect(scan.inFiles.filter((s) => secrets.includes(s))).toEqual([]);

      offsetMs = 600_000 + 1;
      const after = await gate.authorize(new Headers({ "PAYMENT-SIGNATURE": await officialSignature(required, id) }), operation(body), CONTEXT);
      expect(after.kind).toBe("verified"); // not answered from memory any more: a new payment
      if (after.kind === "verified") await gate.release(after.payment);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
