/**
 * Signed offers and receipts (the x402 `offer-receipt` extension) on a Tollbooth with payments on,
 * settled on anvil, paid with the official x402 client over HTTP, MCP and A2A: the official
 * extension's own verification accepts every offer and receipt (the key found through did:web, and
 * through the published JWKS) and refuses them once one byte changed; the receipt and the evidence
 * attestation of the same call name the same transaction, resource and request. `tollbooth buy
 * --require-signed` pays a signing seller, and refuses, before any signature, a seller built with the
 * official server packages alone (unsigned) and an offer altered on the way.
 * @see issue 40 (Standard receipts)
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Role } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402HTTPClient } from "@x402/core/client";
import {
  createOfferJWS,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
} from "@x402/extensions/offer-receipt";
import { exportJWK, generateKeyPair } from "jose";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { buy, type BuyOptions } from "../../src/buyer/buy.ts";
import { buyMcp } from "../../src/buyer/buy-mcp.ts";
import { BuyerRefusal } from "../../src/buyer/key-file.ts";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { decodePaymentRequired, encodePaymentRequired } from "../../src/x402/headers.ts";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "../../src/x402/messages.ts";
import { repoRoot } from "../support/binary-build.ts";
import { type OfficialSeller, startOfficialSeller } from "../support/official-seller.ts";
import { type BuyerStage, countingFetch, withBuyerPage } from "../support/paid-stage.ts";
import { NETWORK } from "./evm-fixture.ts";

type Json = Record<string, unknown>;

let stage: BuyerStage;
let base: string;
let http: x402HTTPClient;
let mcp: Client;
let a2a: LegacyJsonRpcTransport;
let unsigned: OfficialSeller;

beforeAll(async () => {
  stage = await withBuyerPage("tb-receipts-", "<html><head><title>Receipts</title></head><body><main><h1>Receipts</h1><p>What was paid for and what was delivered, both signed.</p></main></body></html>");
  base = stage.base;
  http = new x402HTTPClient(stage.officialBuyer());
  mcp = new Client({ name: "offer-receipt-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  a2a = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a` });
  unsigned = await startOfficialSeller(stage.fx);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await unsigned?.stop();
  await stage?.stop();
});

const pageUrl = () => stage.site.url("/page");
const sign = async (offer: PaymentRequired) => (await stage.officialBuyer().createPaymentPayload(offer as never)) as unknown as PaymentPayload;
const jwksKey = async (kid: string) => {
  const { keys } = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: Json[] };
  const key = keys.find((k) => k.kid === kid.split("#")[1]);
  if (!key) throw new Error(`no published key for ${kid}`);
  return { kty: key.kty, crv: key.crv, x: key.x, alg: key.alg } as never;
};
const headerOf = (jws: string) => JSON.parse(Buffer.from(jws.split(".")[0]!, "base64url").toString("utf8")) as { alg: string; kid: string };

/** The JWS with one field of its payload changed (signature kept), and with one byte of its signature changed. */
function tampered(jws: string, field: string, value: unknown): string[] {
  const [header, payload, signature] = jws.split(".") as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Json;
  const edited = Buffer.from(JSON.stringify({ ...claims, [field]: value })).toString("base64url");
  const bytes = Buffer.from(signature, "base64url");
  bytes[0] = bytes[0]! ^ 1;
  return [`${header}.${edited}.${signature}`, `${header}.${payload}.${bytes.toString("base64url")}`];
}

/** Every offer of a PaymentRequired verifies with the official extension (did:web and JWKS), states its accepts entry, and fails once changed. */
async function expectSignedOffers(required: PaymentRequired) {
  const offers = extractOffersFromPaymentRequired(required as never) as JWSSignedOffer[];
  expect(offers).toHaveLength(required.accepts.length);
  for (const [i, offer] of offers.entries()) {
    expect(offer.format).toBe("jws");
    expect(headerOf(offer.signature)).toMatchObject({ alg: "EdDSA", kid: expect.stringMatching(/^did:web:127\.0\.0\.1%3A\d+#[A-Za-z0-9_-]{43}$/) });
    const payload = await verifyOfferSignatureJWS(offer);
    const accepted = required.accepts[i]!;
    expect(payload).toMatchObject({ version: 1, resourceUrl: required.resource.url, scheme: accepted.scheme, network: accepted.network, asset: accepted.asset, payTo: accepted.payTo, amount: accepted.amount });
    expect(await verifyOfferSignatureJWS(offer, await jwksKey(headerOf(offer.signature).kid))).toEqual(payload);
    for (const forged of tampered(offer.signature, "amount", "1")) {
      await expect(verifyOfferSignatureJWS({ ...offer, signature: forged })).rejects.toThrow();
    }
  }
}

/** A receipt verifies with the official extension, names this payment and request, and fails once changed; returns its payload. */
async function expectSignedReceipt(settlement: SettleResponse, resourceUrl: string): Promise<Json> {
  const receipt = (settlement.extensions?.["offer-receipt"] as { info: { receipt: JWSSignedReceipt } }).info.receipt;
  const payload = (await verifyReceiptSignatureJWS(receipt)) as unknown as Json;
  // A copy is matched: bun's toMatchObject may write its asymmetric matchers into the object it checks.
  expect({ ...payload }).toMatchObject({ version: 1, network: NETWORK, resourceUrl, payer: stage.fx.buyer.address, transaction: settlement.transaction, requestId: expect.stringMatching(/^req_[0-9a-f]{32}$/) });
  expect(await verifyReceiptSignatureJWS(receipt, await jwksKey(headerOf(receipt.signature).kid))).toEqual(payload as never);
  for (const forged of tampered(receipt.signature, "payer", "0x000000000000000000000000000000000000dEaD")) {
    await expect(verifyReceiptSignatureJWS({ ...receipt, signature: forged })).rejects.toThrow();
  }
  return payload;
}

/** The attestation of a paid evidence result verifies and names the receipt's transaction, resource and request. */
async function expectEvidenceNaming(result: Json, receipt: Json) {
  const jwks = await (await fetch(`${base}/.well-known/jwks.json`)).json();
  const outcome = await verifyEvidence(result, jwks as never);
  expect(outcome).toMatchObject({ kind: "checked", valid: true });
  const [statement] = (outcome as unknown as { statements: { payment: Json }[] }).statements;
  expect(statement!.payment).toEqual({ network: receipt.network, transaction: receipt.transaction, resource: receipt.resourceUrl, request_id: receipt.requestId });
}

describe("signed offers and receipts over HTTP", () => {
  it("signs each 402 offer and the PAYMENT-RESPONSE receipt; the receipt and the evidence name each other", async () => {
    const post = (headers: Record<string, string>) => fetch(`${base}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ url: pageUrl() }) });
    const unpaid = await post({});
    expect(unpaid.status).toBe(402);
    const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json()) as unknown as PaymentRequired;
    expect(required.resource.url).toBe(`${base}/v1/web/read`);
    await expectSignedOffers(required);

    const paid = await post(http.encodePaymentSignatureHeader((await sign(required)) as never));
    expect(paid.status).toBe(200);
    const result = (await paid.json()) as Json;
    expect(extractReceiptFromResponse(paid)?.format).toBe("jws");
    const settlement = http.getPaymentSettleResponse((name) => paid.headers.get(name)) as unknown as SettleResponse;
    const receipt = await expectSignedReceipt(settlement, required.resource.url);
    expect(receipt.requestId).toBe(paid.headers.get("x-request-id"));
    await expectEvidenceNaming(result, receipt);
  });

  it("publishes the evidence keys as the DID document their did:web key ids resolve to", async () => {
    const response = await fetch(`${base}/.well-known/did.json`);
    expect(response.headers.get("content-type")).toContain("application/did+json");
    const doc = (await response.json()) as { id: string; verificationMethod: { id: string; publicKeyJwk: Json }[]; assertionMethod: string[] };
    const { keys } = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: Json[] };
    expect(doc.id).toBe(`did:web:${encodeURIComponent(new URL(base).host)}`);
    // The Ed25519 keys, which sign offers and receipts; the JWKS's ECDSA P-384 key signs WACZ packages only.
    expect(doc.verificationMethod.map((m) => m.id)).toEqual(keys.filter((k) => k.kty === "OKP").map((k) => `${doc.id}#${String(k.kid)}`));
    expect(keys.filter((k) => k.kty !== "OKP").map((k) => k.crv)).toEqual(["P-384"]);
    expect(doc.assertionMethod).toEqual(doc.verificationMethod.map((m) => m.id));
  });
});

describe("signed offers and receipts over MCP", () => {
  it("signs the offer in the tool error and the receipt in _meta", async () => {
    const call = (meta?: Json) => mcp.callTool({ name: "web_read", arguments: { url: pageUrl() }, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;
    const unpaid = await call();
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    expect(required.resource.url).toBe(`${base}/mcp?tool=web_read`);
    await expectSignedOffers(required);

    const paid = await call({ "x402/payment": await sign(required) });
    expect(paid.isError).toBeFalsy();
    const settlement = (paid._meta as Json)["x402/payment-response"] as SettleResponse;
    const receipt = await expectSignedReceipt(settlement, required.resource.url);
    await expectEvidenceNaming(JSON.parse((paid.content[0] as { text: string }).text) as Json, receipt);
  });
});

describe("signed offers and receipts over A2A", () => {
  type Task = Awaited<ReturnType<LegacyJsonRpcTransport["getTask"]>>;
  const send = async (content: { $case: "data"; value: Json } | { $case: "text"; value: string }, taskId = "", metadata?: Json) =>
    (await a2a.sendMessage({
      tenant: "",
      message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts: [{ content, metadata: undefined, filename: "", mediaType: "" }], metadata, extensions: [], referenceTaskIds: [] },
      configuration: undefined,
      metadata: undefined,
    })) as Task;
  const meta = (task: Task) => (task.status?.message?.metadata ?? {}) as Json;

  it("signs the offer in x402.payment.required and the payment-completed receipt", async () => {
    const task = await send({ $case: "data", value: { skill: "web.read", url: pageUrl() } });
    expect(meta(task)["x402.payment.status"]).toBe("payment-required");
    const required = meta(task)["x402.payment.required"] as PaymentRequired;
    // Each offer names its own task's offer id (A2A payments are bound to the offer made for that task).
    expect(required.resource.url).toStartWith(`${base}/a2a?skill=web.read&offer=`);
    await expectSignedOffers(required);

    const done = await send({ $case: "text", value: "payment" }, task.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": await sign(required) });
    expect(meta(done)["x402.payment.status"]).toBe("payment-completed");
    const [settlement] = meta(done)["x402.payment.receipts"] as SettleResponse[];
    const receipt = await expectSignedReceipt(settlement!, required.resource.url);
    const artifact = done.artifacts[0]!.parts.find((p) => p.content?.$case === "data")!.content!.value as Json;
    await expectEvidenceNaming(artifact, receipt);
  });
});

describe("tollbooth buy --require-signed", () => {
  const options = (over: Partial<BuyOptions> = {}): BuyOptions => ({
    url: `${base}/v1/web/read`,
    json: JSON.stringify({ url: pageUrl() }),
    keyFile: stage.keyFile,
    network: NETWORK,
    asset: stage.fx.token.address,
    maxUsd: 0.05,
    dailyCapUsd: 1,
    spendLog: join(stage.tmp, `spend-${Math.random().toString(36).slice(2)}.jsonl`),
    requireSigned: true,
    ...over,
  });

  it("pays a seller that signs: the offer checked before, the receipt after, the evidence tied to the receipt's request", async () => {
    const outcome = await buy(options());
    expect(outcome.status).toBe(200);
    expect(outcome.offerSignature).toMatchObject({ signed: true, valid: true });
    const requestId = outcome.receiptSignature?.requestId;
    expect({ ...outcome.receiptSignature }).toMatchObject({ signed: true, valid: true, resourceUrl: `${base}/v1/web/read`, requestId: expect.stringMatching(/^req_/) });
    expect(outcome.evidence).toMatchObject({ valid: true, detail: expect.stringContaining(`the signed receipt's request ${requestId}`) });
  });

  it("refuses a seller built with the official server packages alone (unsigned offers): nothing is signed or paid", async () => {
    const before = await stage.fx.token.balanceOf(stage.fx.buyer.address);
    const { f, seen } = countingFetch();
    const attempt = buy(options({ url: unsigned.url, json: JSON.stringify({ text: "hi" }), fetch: f }));
    await expect(attempt).rejects.toThrow(BuyerRefusal);
    await expect(attempt).rejects.toThrow(/--require-signed: the 402 carries no signed offer.*nothing was signed/);
    expect(seen.signatures).toBe(0);
    expect(await stage.fx.token.balanceOf(stage.fx.buyer.address)).toBe(before);
  });

  it("as the command: exit 1 with the reason on stderr, and nothing in the spend log", async () => {
    const spendLog = join(stage.tmp, "cli-unsigned.jsonl");
    const proc = Bun.spawn(
      [process.execPath, join(repoRoot, "src/main.ts"), "buy", unsigned.url, "--json", '{"text":"hi"}', "--network", NETWORK, "--asset", stage.fx.token.address, "--key-file", stage.keyFile, "--spend-log", spendLog, "--require-signed"],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toContain("tollbooth buy: refused: --require-signed: the 402 carries no signed offer");
    expect(existsSync(spendLog)).toBe(false);
  });

  it("without the flag pays the unsigned seller and says the offer and receipt were unsigned", async () => {
    const outcome = await buy(options({ url: unsigned.url, json: JSON.stringify({ text: "hi" }), requireSigned: false }));
    expect(outcome.status).toBe(200);
    expect(outcome.body).toEqual({ ok: true, echoed: "hi" });
    expect(outcome.offerSignature).toMatchObject({ signed: false, valid: false });
    expect(outcome.receiptSignature).toMatchObject({ signed: false, valid: false });
  });

  /** A fetch that hands the buyer the seller's 402 after `edit` changed it on the way (the seller itself is real). */
  const editing402 = (f: typeof fetch, edit: (required: PaymentRequired) => Promise<void> | void): typeof fetch =>
    (async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await f(input, init);
      const header = response.headers.get("payment-required");
      const decoded = response.status === 402 && header ? decodePaymentRequired(header) : undefined;
      if (!decoded?.ok) return response;
      await edit(decoded.value);
      const headers = new Headers(response.headers);
      headers.set("payment-required", encodePaymentRequired(decoded.value));
      return new Response(await response.text(), { status: 402, headers });
    }) as typeof fetch;
  const firstOffer = (required: PaymentRequired) => (extractOffersFromPaymentRequired(required as never) as JWSSignedOffer[])[0]!;

  it("refuses an offer whose signed terms were altered on the way (a cheaper amount shown): nothing is signed", async () => {
    const { f, seen } = countingFetch();
    const altering = editing402(f, (required) => {
      firstOffer(required).signature = tampered(firstOffer(required).signature, "amount", "4000")[0]!;
      required.accepts[0] = { ...required.accepts[0]!, amount: "4000" };
    });
    await expect(buy(options({ fetch: altering }))).rejects.toThrow(/--require-signed: the signed offer does not verify.*nothing was signed/);
    expect(seen.signatures).toBe(0);
  });

  it("refuses terms shown differently from the ones signed, and an offer re-signed with a key the seller does not publish", async () => {
    const { f, seen } = countingFetch();
    const cheaper = editing402(f, (required) => {
      required.accepts[0] = { ...required.accepts[0]!, amount: "4000" };
    });
    await expect(buy(options({ fetch: cheaper }))).rejects.toThrow(/--require-signed: no signed offer states the terms to be paid/);
    // Re-signed whole with the official extension and a key of the forger's own (did:jwk: the official verifier accepts it without a key).
    const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const jwk = await exportJWK(pair.publicKey);
    const forger = {
      kid: `did:jwk:${Buffer.from(JSON.stringify({ ...jwk, alg: "EdDSA" })).toString("base64url")}#0`,
      format: "jws" as const,
      algorithm: "EdDSA",
      sign: async (bytes: Uint8Array) => Buffer.from(await crypto.subtle.sign("Ed25519", pair.privateKey, bytes as Uint8Array<ArrayBuffer>)).toString("base64url"),
    };
    const resigned = editing402(f, async (required) => {
      const accepted = required.accepts[0]!;
      const offer = await createOfferJWS(required.resource.url, { acceptIndex: 0, ...accepted, offerValiditySeconds: 60 }, forger);
      expect(await verifyOfferSignatureJWS(offer)).toMatchObject({ amount: accepted.amount });
      (required.extensions!["offer-receipt"] as { info: { offers: JWSSignedOffer[] } }).info.offers = [offer];
    });
    await expect(buy(options({ fetch: resigned }))).rejects.toThrow(/--require-signed: the signed offer does not verify: key id did:jwk:.* is not did:web of the seller's host/);
    expect(seen.signatures).toBe(0);
  });

  it("reports a receipt altered on the way as not verifying (the payment itself went through)", async () => {
    const altering = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      const header = response.headers.get("payment-response");
      if (!header) return response;
      const settlement = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as SettleResponse;
      const receipt = (settlement.extensions!["offer-receipt"] as { info: { receipt: JWSSignedReceipt } }).info.receipt;
      receipt.signature = tampered(receipt.signature, "resourceUrl", `${base}/v1/web/fetch`)[0]!;
      const headers = new Headers(response.headers);
      headers.set("payment-response", Buffer.from(JSON.stringify(settlement)).toString("base64"));
      return new Response(await response.text(), { status: response.status, headers });
    }) as typeof fetch;
    const outcome = await buy(options({ fetch: altering }));
    expect(outcome.receipt).toMatchObject({ success: true });
    expect(outcome.receiptSignature).toMatchObject({ signed: true, valid: false, detail: expect.stringContaining("the signed receipt does not verify") });
  });

  it("pays a signing MCP server the same way: the offer checked before, the receipt after", async () => {
    const outcome = await buyMcp({ ...options(), url: `${base}/mcp`, tool: "web_read" });
    expect(outcome.isError).toBe(false);
    expect(outcome.offerSignature).toMatchObject({ signed: true, valid: true });
    expect({ ...outcome.receiptSignature }).toMatchObject({ signed: true, valid: true, resourceUrl: `${base}/mcp?tool=web_read` });
    expect(outcome.evidence).toMatchObject({ valid: true, detail: expect.stringContaining("the signed receipt's request req_") });
  });
});
