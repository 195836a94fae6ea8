/**
 * Only the payer of a crawl reads or cancels it, by the payer's proof (x402's Sign-In-With-X,
 * src/x402/payer-proof.ts): a proof signed by the paying wallet (EVM: SIWE/EIP-191; Algorand:
 * Ed25519 over "MX" + the message) for the crawl's status URL opens it over HTTP and MCP; none is
 * 401 PAYER_PROOF_REQUIRED with the challenge; another wallet's valid proof is 403
 * CRAWL_ACCESS_DENIED; a replayed, stale, expired, other-crawl or other-network proof is 401
 * PAYER_PROOF_INVALID. The crawls are stored with their payer as a paid crawl is (the paid flow on
 * anvil is test/flows/web-crawl-paid.test.ts); a crawl of a server with payments off has no payer
 * and is read with its id alone, as a job is.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import algosdk from "algosdk";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { PAYER_PROOF_HEADER } from "../../src/x402/payer-proof.ts";
import { algorandProof, evmProof, type ProofFields } from "../support/payer-proof.ts";
import type { SiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";
import { startTreeSite } from "../crawl/crawl-site.ts";
import { filePostgres } from "../support/store-engines.ts";

const BASE = "eip155:84532";
const ALGORAND = "algorand:SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=";
const ORIGIN = "http://127.0.0.1:8402";

let site: SiteServer;
let service: TestService;
const payerKey = generatePrivateKey();
const strangerKey = generatePrivateKey();
const evmPayer = privateKeyToAccount(payerKey);
const algoPayer = algosdk.generateAccount();
const algoStranger = algosdk.generateAccount();

const urlOf = (crawlId: string) => `${ORIGIN}/v1/web/crawl/${crawlId}`;
const evm = (key: `0x${string}`, crawlId: string, f: ProofFields = {}) => evmProof(key, urlOf(crawlId), BASE, f);
const algo = (account: algosdk.Account, crawlId: string, f: ProofFields = {}) => algorandProof(account, urlOf(crawlId), ALGORAND, f);

/** A crawl stored as a paid call stores it (payer lowercased, payment network recorded), then released. */
async function paidCrawl(payer: string, network: string, on: TestService = service): Promise<string> {
  const id = `crawl_${randomBytes(16).toString("hex")}`;
  const now = Date.now();
  await on.store.crawls.create(
    { id, request: { url: site.url("/"), limit: 2, max_depth: 1, sitemap: "skip" }, payer: payer.toLowerCase(), limit: 2, createdAt: new Date(now).toISOString(), deadlineMs: now + 600_000, expiresMs: now + 3_600_000 },
    [{ url: site.url("/"), depth: 0 }],
  );
  await on.store.crawls.release(id, { network, transaction: "0xfeed" });
  return id;
}

const get = (id: string, proof?: string, on: TestService = service) => on.request(`/v1/web/crawl/${id}`, { headers: proof ? { [PAYER_PROOF_HEADER]: proof } : {} });
const del = (id: string, proof?: string) => service.request(`/v1/web/crawl/${id}`, { method: "DELETE", headers: proof ? { [PAYER_PROOF_HEADER]: proof } : {} });
async function refusal(res: Response): Promise<{ status: number; error: string; reason?: string }> {
  const body = (await res.json()) as { error: string; reason?: string };
  return { status: res.status, error: body.error, ...(body.reason ? { reason: body.reason } : {}) };
}

beforeAll(async () => {
  site = startTreeSite(3);
  service = await testService(["--unsafe-allow-loopback-targets", "--crawl-host-delay-ms", "0", "--rate-limit-per-min", "10000"]);
});
afterAll(async () => {
  await service.close();
  await site.stop();
});

describe("the payer's proof of a crawl", () => {
  it("an EVM payer reads and cancels its crawl with its proof; no proof is 401 with the challenge; another wallet's is 403", async () => {
    const id = await paidCrawl(evmPayer.address, BASE);
    const none = await get(id);
    expect(none.status).toBe(401);
    const challenge = (await none.json()) as { error: string; challenge: { header: string; uri: string; domain: string; chainId: string } };
    expect(challenge).toMatchObject({ error: "PAYER_PROOF_REQUIRED", challenge: { header: "SIGN-IN-WITH-X", uri: `${ORIGIN}/v1/web/crawl/${id}`, domain: "127.0.0.1:8402", chainId: BASE } });
    const read = await get(id, await evm(payerKey, id));
    expect(read.status).toBe(200);
    expect(((await read.json()) as { crawl_id: string }).crawl_id).toBe(id);
    expect(await refusal(await get(id, await evm(strangerKey, id)))).toEqual({ status: 403, error: "CRAWL_ACCESS_DENIED" });
    expect(await refusal(await del(id, await evm(strangerKey, id)))).toEqual({ status: 403, error: "CRAWL_ACCESS_DENIED" });
    expect(await refusal(await del(id))).toMatchObject({ status: 401, error: "PAYER_PROOF_REQUIRED" });
    const cancel = await del(id, await evm(payerKey, id));
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as { status: string }).status).toBe("cancelled");
  });

  it("refuses a replayed, stale, expired, other-crawl, other-network or forged proof (401 PAYER_PROOF_INVALID)", async () => {
    const id = await paidCrawl(evmPayer.address, BASE);
    const other = await paidCrawl(evmPayer.address, BASE);
    const once = await evm(payerKey, id);
    expect((await get(id, once)).status).toBe(200);
    expect(await refusal(await get(id, once))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "replayed" });
    expect(await refusal(await del(id, once))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "replayed" });
    const stale = await evm(payerKey, id, { issuedAt: new Date(Date.now() - 10 * 60_000) });
    expect(await refusal(await get(id, stale))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "invalid_siwx_issued_at_too_old" });
    const expired = await evm(payerKey, id, { issuedAt: new Date(Date.now() - 60_000), expiresInMs: 1_000 });
    expect(await refusal(await get(id, expired))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "invalid_siwx_expired" });
    const forever = await evm(payerKey, id, { expiresInMs: 24 * 3_600_000 });
    expect(await refusal(await get(id, forever))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "invalid_siwx_expiration_time" });
    // A proof made for one crawl does not open another of the same payer.
    expect(await refusal(await get(other, await evm(payerKey, id)))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "invalid_siwx_uri_mismatch" });
    expect(await refusal(await get(id, await evm(payerKey, id, { uri: `http://evil.example/v1/web/crawl/${id}` })))).toMatchObject({ status: 401, reason: "invalid_siwx_uri_mismatch" });
    expect(await refusal(await get(id, await evm(payerKey, id, { chainId: "eip155:1" })))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "invalid_siwx_chain_id" });
    // The stranger's signature under the payer's address.
    const forged = JSON.parse(Buffer.from(await evm(strangerKey, id), "base64").toString()) as Record<string, string>;
    const asPayer = Buffer.from(JSON.stringify({ ...forged, address: evmPayer.address })).toString("base64");
    expect(await refusal(await get(id, asPayer))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "invalid_siwx_signature" });
    expect(await refusal(await get(id, "not base64 at all!"))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "malformed" });
    // Fields no SIWE message may hold (the SIWE parser throws on them): refused, never a 500.
    const signed = JSON.parse(Buffer.from(await evm(payerKey, id), "base64").toString()) as Record<string, unknown>;
    for (const bent of [{ nonce: "x" }, { nonce: "ab-cd-ef-gh" }, { statement: "a\nb" }, { address: "0xnothex" }, { version: "2" }, { resources: ["not a uri"] }]) {
      const header = Buffer.from(JSON.stringify({ ...signed, ...bent })).toString("base64");
      expect(await refusal(await get(id, header))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "malformed" });
    }
  });

  it("an Algorand payer proves itself with an Ed25519 signature over its address's message", async () => {
    const id = await paidCrawl(algoPayer.addr.toString(), ALGORAND);
    expect((await get(id, algo(algoPayer, id))).status).toBe(200);
    expect(await refusal(await get(id, algo(algoStranger, id)))).toEqual({ status: 403, error: "CRAWL_ACCESS_DENIED" });
    const forged = JSON.parse(Buffer.from(algo(algoStranger, id), "base64").toString()) as Record<string, string>;
    const asPayer = Buffer.from(JSON.stringify({ ...forged, address: algoPayer.addr.toString() })).toString("base64");
    expect(await refusal(await get(id, asPayer))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "invalid_siwx_signature" });
    expect((await del(id, algo(algoPayer, id))).status).toBe(200);
  });

  it("over MCP, crawl_status and crawl_cancel take the same proof", async () => {
    const id = await paidCrawl(evmPayer.address, BASE);
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await service.request("/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
      });
      const { result } = (await res.json()) as { result: { isError?: boolean; structuredContent: Record<string, unknown> } };
      return { isError: result.isError === true, body: result.structuredContent };
    };
    expect(await call("crawl_status", { crawl_id: id })).toMatchObject({ isError: true, body: { error: "PAYER_PROOF_REQUIRED", challenge: { uri: `${ORIGIN}/v1/web/crawl/${id}` } } });
    expect(await call("crawl_status", { crawl_id: id, proof: await evm(strangerKey, id) })).toMatchObject({ isError: true, body: { error: "CRAWL_ACCESS_DENIED" } });
    expect(await call("crawl_status", { crawl_id: id, proof: await evm(payerKey, id), limit: 10 })).toMatchObject({ isError: false, body: { ok: true, crawl_id: id } });
    expect(await call("crawl_cancel", { crawl_id: id, proof: await evm(payerKey, id) })).toMatchObject({ isError: false, body: { status: "cancelled" } });
  });

  it("a crawl with no payer (payments off) is read and cancelled with its id alone, as a job is", async () => {
    const res = await service.request("/v1/web/crawl", { method: "POST", json: { url: site.url("/"), limit: 2, sitemap: "skip" } });
    const { crawl_id: id, ...accepted } = (await res.json()) as { crawl_id: string; access_token?: string };
    expect(res.status).toBe(202);
    expect(accepted.access_token).toBeUndefined();
    expect((await get(id)).status).toBe(200);
    expect((await del(id)).status).toBe(200);
    expect((await get(`crawl_${"0".repeat(32)}`)).status).toBe(404);
  });
});

const postgres = filePostgres("crawl_proof", "a replayed proof refused by another instance on PostgreSQL");

describe.skipIf(postgres.skip)("the payer's proof across two instances on PostgreSQL", () => {
  it("a proof used on one instance is refused as replayed by the other; a fresh one opens the crawl there", async () => {
    const url = await postgres.freshDatabase();
    const args = ["--database-url", url, "--unsafe-allow-loopback-targets", "--crawl-host-delay-ms", "0"];
    const [one, two] = [await testService(args), await testService(args)];
    try {
      const id = await paidCrawl(evmPayer.address, BASE, one);
      const proof = await evm(payerKey, id);
      expect((await get(id, proof, one)).status).toBe(200);
      expect(await refusal(await get(id, proof, two))).toEqual({ status: 401, error: "PAYER_PROOF_INVALID", reason: "replayed" });
      expect((await get(id, await evm(payerKey, id), two)).status).toBe(200);
    } finally {
      await one.close();
      await two.close();
    }
  }, 60_000);
});
