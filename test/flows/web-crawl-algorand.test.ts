/**
 * A crawl paid on Algorand (the official @x402/avm buyer, through the algod stand-in of
 * test/support/algod.ts) is read and cancelled by its payer with an Algorand payer's proof: the
 * CAIP-122 message signed with algosdk's signBytes by the account that paid, on the network it paid
 * on. Another account's proof is 403; a proof made on another network is refused.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import algosdk from "algosdk";
import { ExactAvmScheme, toClientAvmSigner } from "@x402/avm";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { PAYER_PROOF_HEADER } from "../../src/x402/payer-proof.ts";
import { ALGO, algorandX402, type FakeAlgod, newAlgodAccount, startFakeAlgod, USDC_ASA } from "../support/algod.ts";
import { algorandProof } from "../support/payer-proof.ts";
import { type TestService, testService } from "../support/service.ts";
import type { SiteServer } from "../support/site-server.ts";
import { startTreeSite } from "../crawl/crawl-site.ts";

const NETWORK = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k";
const ORIGIN = "http://127.0.0.1:8402";

let algod: FakeAlgod;
let site: SiteServer;
let service: TestService;
let buyer: algosdk.Account;

beforeAll(async () => {
  algod = startFakeAlgod();
  site = startTreeSite(2);
  const account = (opts: { algo?: bigint; usdc?: bigint } = {}) => newAlgodAccount(algod, { ...opts, algo: opts.algo ?? 10n * ALGO });
  buyer = account({ usdc: 1_000_000n });
  const config = algorandX402(algod, { payTo: account(), feePayer: account() });
  service = await testService(["--payments", "on", "--x402", JSON.stringify(config), "--unsafe-allow-loopback-targets", "--crawl-host-delay-ms", "0"], { pollingIntervalMs: 20 });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await site?.stop();
  await algod?.stop();
});

describe("a crawl paid on Algorand", () => {
  it("is read and cancelled with the paying account's proof, and with no other", async () => {
    const client = new x402Client();
    client.register(NETWORK, new ExactAvmScheme(toClientAvmSigner(Buffer.from(buyer.sk).toString("base64")), { algodUrl: algod.url }) as never);
    const pay = wrapFetchWithPayment(((input: RequestInfo | URL, init?: RequestInit) => service.handle(new Request(input, init), "127.0.0.1")) as typeof fetch, client);
    const before = algod.assetBalance(buyer.addr.toString(), USDC_ASA) ?? 0n;
    const res = await pay(`${ORIGIN}/v1/web/crawl`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url("/"), limit: 2, sitemap: "skip" }) });
    expect(res.status).toBe(202);
    const { crawl_id: id, status_url: statusUrl } = (await res.json()) as { crawl_id: string; status_url: string };
    expect(statusUrl).toBe(`${ORIGIN}/v1/web/crawl/${id}`);
    expect(algod.assetBalance(buyer.addr.toString(), USDC_ASA)).toBeLessThan(before);

    const ask = (proof: string | undefined, method = "GET") => service.request(`/v1/web/crawl/${id}`, { method, headers: proof ? { [PAYER_PROOF_HEADER]: proof } : {} });
    const none = await ask(undefined);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { challenge: { chainId: string; type: string } }).challenge).toMatchObject({ chainId: NETWORK, type: "ed25519" });
    expect((await ask(algorandProof(buyer, statusUrl, NETWORK))).status).toBe(200);
    expect((await ask(algorandProof(algosdk.generateAccount(), statusUrl, NETWORK))).status).toBe(403);
    const elsewhere = await ask(algorandProof(buyer, statusUrl, "algorand:SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI="));
    expect(((await elsewhere.json()) as { reason: string }).reason).toBe("invalid_siwx_chain_id");
    const cancelled = await ask(algorandProof(buyer, statusUrl, NETWORK), "DELETE");
    expect(cancelled.status).toBe(200);
    expect(["cancelled", "completed"]).toContain(((await cancelled.json()) as { status: string }).status);
  }, 60_000);
});
