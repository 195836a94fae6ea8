/**
 * An Idempotency-Key answer is replayed only to a payer who proved it (issue 15 §0): payer A pays
 * a sync and an async skill under a key, then a forged PAYMENT-SIGNATURE that merely names A
 * (EVM: `authorization.from` with no or another key's signature; Algorand: A's transaction
 * without A's signature) with the same key and body gets a 402 — never A's result, A's
 * PAYMENT-RESPONSE or A's job id. A's own retries still replay: the very payload again, or a
 * fresh authorization that is verified and then left unused (the chain shows one payment).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import algosdk from "algosdk";
import { ExactAvmScheme, toClientAvmSigner } from "@x402/avm";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey } from "viem/accounts";
import { decodeBase64Json, encodeBase64Json } from "../../src/x402/headers.ts";
import type { PaymentPayload } from "../../src/x402/messages.ts";
import { ALGO, algorandX402, type FakeAlgod, newAlgodAccount, startFakeAlgod } from "../support/algod.ts";
import { type TestService, testService } from "../support/service.ts";
import { type EvmFixture, startEvmFixture } from "../x402/evm-fixture.ts";
import { gatedSkill, type GateControl, installGates, jobSkillFolder } from "./job-skills.ts";

type Json = Record<string, unknown>;

let gates: GateControl;
let fx: EvmFixture;
let evm: TestService;
let algod: FakeAlgod;
let avm: TestService;
let avmBuyer: algosdk.Account;


const algoAccount = (opts: { usdc?: bigint } = {}): algosdk.Account => newAlgodAccount(algod, { ...opts, algo: 10n * ALGO });

beforeAll(async () => {
  gates = installGates();
  const folder = jobSkillFolder({ "test-later.ts": gatedSkill("test.later", { price: "0.003" }) });
  fx = await startEvmFixture();
  evm = await testService(["--plugins", folder, "--payments", "on", "--x402", JSON.stringify(fx.config())], { pollingIntervalMs: 20 });
  algod = startFakeAlgod();
  avmBuyer = algoAccount({ usdc: 1_000_000n });
  const payTo = algoAccount();
  const feePayer = algoAccount();
  const avmConfig = algorandX402(algod, { payTo, feePayer });
  avm = await testService(["--plugins", folder, "--payments", "on", "--x402", JSON.stringify(avmConfig)], { pollingIntervalMs: 20 });
}, 60_000);

afterAll(async () => {
  evm?.close();
  avm?.close();
  await fx?.stop();
  await algod?.stop();
});

interface Paid {
  readonly res: Response;
  readonly body: Json;
  /** The PAYMENT-SIGNATURE the official buyer sent. */
  readonly signature: string;
}

/** Pays through the official buyer (`network` picks EVM or Algorand), keeping the signature it sent. */
async function pay(target: TestService, network: "evm" | "avm", body: Json, key: string): Promise<Paid> {
  let signature = "";
  const transport = ((input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    signature = request.headers.get("PAYMENT-SIGNATURE") ?? signature;
    return target.handle(request, "127.0.0.1");
  }) as typeof fetch;
  let payFetch: typeof fetch;
  if (network === "evm") {
    payFetch = fx.officialFetch(fx.buyer.key, undefined, transport);
  } else {
    const client = new x402Client();
    client.register("algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k", new ExactAvmScheme(toClientAvmSigner(Buffer.from(avmBuyer.sk).toString("base64")), { algodUrl: algod.url }) as never);
    payFetch = wrapFetchWithPayment(transport, client) as typeof fetch;
  }
  const res = await payFetch("http://127.0.0.1:8402/v1/jobs", { method: "POST", headers: { "content-type": "application/json", "Idempotency-Key": key }, body: JSON.stringify(body) });
  return { res, body: (await res.clone().json()) as Json, signature };
}

/** Sends `signature` as is (from the same client address as the payer: the address proves nothing). */
async function send(target: TestService, body: Json, key: string, signature?: string): Promise<{ res: Response; text: string }> {
  const headers: Record<string, string> = { "content-type": "application/json", "Idempotency-Key": key };
  if (signature !== undefined) headers["PAYMENT-SIGNATURE"] = signature;
  const res = await target.handle(new Request("http://127.0.0.1:8402/v1/jobs", { method: "POST", headers, body: JSON.stringify(body) }), "127.0.0.1");
  return { res, text: await res.text() };
}

function payloadOf(signature: string): PaymentPayload {
  const decoded = decodeBase64Json(signature);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value as PaymentPayload;
}

/** EVM forgeries naming the buyer: the bare claim of the issue, and a full authorization signed by another key. */
async function evmForgeries(signature: string): Promise<string[]> {
  const real = payloadOf(signature);
  const bare = { x402Version: 2, accepted: real.accepted, payload: { authorization: { from: fx.buyer.address } } };
  const otherKey = await fx.signedPayment(real.accepted, { from: fx.buyer.address }, generatePrivateKey());
  return [encodeBase64Json(bare), encodeBase64Json({ ...otherKey, ...(real.extensions ? { extensions: real.extensions } : {}) })];
}

/** Algorand forgery: the buyer's own payment transaction, its signature stripped (and the group otherwise as sent). */
function avmForgeries(signature: string): string[] {
  const real = payloadOf(signature);
  const { paymentGroup, paymentIndex } = real.payload as { paymentGroup: string[]; paymentIndex: number };
  const signed = algosdk.decodeSignedTransaction(Buffer.from(paymentGroup[paymentIndex] ?? "", "base64"));
  expect(signed.txn.sender.toString()).toBe(avmBuyer.addr.toString());
  const unsigned = Buffer.from(algosdk.encodeUnsignedTransaction(signed.txn)).toString("base64");
  const group = paymentGroup.map((entry, i) => (i === paymentIndex ? unsigned : entry));
  return [encodeBase64Json({ ...real, payload: { paymentGroup: group, paymentIndex } })];
}

function expectRefused(answer: { res: Response; text: string }, secrets: string[]): void {
  expect(answer.res.status).toBe(402);
  expect(answer.res.headers.get("idempotent-replayed")).toBeNull();
  expect(answer.res.headers.get("payment-response")).toBeNull();
  for (const secret of secrets) expect(answer.text).not.toContain(secret);
}

const paymentRows = (target: TestService) =>
  target.store.db.query<{ state: string; n: number }, []>("SELECT state, COUNT(*) AS n FROM payment_receipts GROUP BY state ORDER BY state").all();

for (const network of ["evm", "avm"] as const) {
  const target = () => (network === "evm" ? evm : avm);
  const forge = (signature: string) => (network === "evm" ? evmForgeries(signature) : Promise.resolve(avmForgeries(signature)));

  describe(`Idempotency-Key replays only to a proven payer (${network})`, () => {
    it("sync skill: a forged payload naming the payer gets 402, not the payer's result; the payer's own retries replay", async () => {
      const key = `sync-${network}`;
      const body = { skill: "capabilities" };
      const first = await pay(target(), network, body, key);
      expect(first.res.status).toBe(200);
      const paymentResponse = first.res.headers.get("payment-response");
      expect(paymentResponse).not.toBeNull();
      const settledBefore = paymentRows(target());

      for (const forged of await forge(first.signature)) expectRefused(await send(target(), body, key, forged), [paymentResponse ?? "", String(first.body.request_id)]);
      // no payment at all, same client address: the challenge, not the payer's answer
      expectRefused(await send(target(), body, key), [String(first.body.request_id)]);

      const identical = await send(target(), body, key, first.signature);
      expect(identical.res.status).toBe(200);
      expect(identical.res.headers.get("idempotent-replayed")).toBe("true");
      expect(JSON.parse(identical.text)).toEqual(first.body);
      expect(identical.res.headers.get("payment-response")).toBe(paymentResponse);

      const fresh = await pay(target(), network, body, key);
      expect(fresh.signature).not.toBe(first.signature);
      expect(fresh.res.status).toBe(200);
      expect(fresh.res.headers.get("idempotent-replayed")).toBe("true");
      expect(fresh.body).toEqual(first.body);
      // the fresh authorization was verified, then left unused: still one settled payment
      const after = paymentRows(target());
      expect(after.find((r) => r.state === "settled")?.n).toBe(settledBefore.find((r) => r.state === "settled")?.n ?? 0);
      expect(after.find((r) => r.state === "unused")?.n ?? 0).toBeGreaterThan(0);
    }, 30_000);

    it("async skill: a forged payload naming the payer never learns the job id", async () => {
      const key = `async-${network}`;
      const tag = `later-${network}`;
      const body = { skill: "test.later", tag };
      const first = await pay(target(), network, body, key);
      expect(first.res.status).toBe(202);
      const jobId = String(first.body.job_id);
      expect(jobId).toMatch(/^job_/);

      for (const forged of await forge(first.signature)) expectRefused(await send(target(), body, key, forged), [jobId]);
      expectRefused(await send(target(), body, key), [jobId]);

      const identical = await send(target(), body, key, first.signature);
      expect(identical.res.status).toBe(202);
      expect(identical.res.headers.get("idempotent-replayed")).toBe("true");
      expect((JSON.parse(identical.text) as Json).job_id).toBe(jobId);
      const fresh = await pay(target(), network, body, key);
      expect(fresh.res.status).toBe(202);
      expect(fresh.body.job_id).toBe(jobId);
      expect(target().store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs WHERE skill = 'test.later'").get()?.n).toBe(1);
      gates.open(tag);
    }, 30_000);
  });
}
