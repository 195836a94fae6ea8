/**
 * Pay for what is delivered with x402's `upto` on anvil: Permit2 and x402UptoPermit2Proxy at the
 * addresses the official client signs for (test/support/upto-contracts.ts), the official facilitator
 * (exact and upto) over HTTP, the whole service settling through it, a real searx, and the official
 * buyer. The buyer authorizes the limit; the seller settles the search plus the reads delivered.
 * @see issue 42 (pay for what is delivered)
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { x402Client } from "@x402/core/client";
import { x402Facilitator } from "@x402/core/facilitator";
import { PERMIT2_ADDRESS, toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme as registerFacilitatorExact } from "@x402/evm/exact/facilitator";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme as UptoClient } from "@x402/evm/upto/client";
import { UptoEvmScheme as UptoFacilitator } from "@x402/evm/upto/facilitator";
import { createWalletClient, http, maxUint256, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningService } from "../../src/boot.ts";
import { decodePaymentResponse } from "../../src/x402/headers.ts";
import { type FacilitatorServer, startFacilitatorServer } from "../support/facilitator.ts";
import { payOverHttp } from "../support/paid-orders.ts";
import { startPaidServiceWith } from "../support/paid-service.ts";
import { skipWithout } from "../support/requirements.ts";
import { type Searx, startSearx } from "../support/searx.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { deployUptoContracts } from "../support/upto-contracts.ts";
import { type EvmFixture, NETWORK, startEvmFixture, USDC } from "../x402/evm-fixture.ts";

const missing = skipWithout("searx", "web.search paid with upto on anvil");
type Network = `${string}:${string}`;

describe.skipIf(missing)("web.search paid with upto (Permit2 on anvil)", () => {
  let fx: EvmFixture;
  let searx: Searx;
  let site: SiteServer;
  let facilitator: FacilitatorServer;
  let service: RunningService;
  let base: string;
  let buyer: x402Client;
  let refunder: { key: `0x${string}`; address: `0x${string}` };

  beforeAll(async () => {
    fx = await startEvmFixture();
    await deployUptoContracts(fx.anvil);
    // The buyer lets Permit2 move its USDC once, as a wallet does before its first Permit2 payment.
    await fx.token.approve(fx.buyer.key, PERMIT2_ADDRESS, maxUint256);
    const account = privateKeyToAccount(fx.settler.key);
    const wallet = createWalletClient({ account, chain: fx.anvil.publicClient.chain, transport: http(fx.anvil.url) }).extend(publicActions);
    const signer = toFacilitatorEvmSigner({ ...wallet, address: account.address } as never);
    const official = new x402Facilitator();
    registerFacilitatorExact(official, { signer, networks: NETWORK as Network });
    official.register(NETWORK as Network, new UptoFacilitator(signer));
    facilitator = startFacilitatorServer({
      verify: (p, r) => official.verify(p as never, r as never),
      settle: (p, r) => official.settle(p as never, r as never),
      supported: async () => official.getSupported(),
    });
    searx = await startSearx();
    site = startSiteServer();
    for (const name of ["wren", "robin"]) site.set(`/${name}`, `<!doctype html><html><head><title>${name}</title></head><body><main><h1>${name}</h1><p>The ${name} sings at dawn in the hedge by the lane.</p></main></body></html>`);
    searx.answer("songbirds", { alpha: [{ url: site.url("/wren"), title: "wren", content: "a small bird" }], beta: [{ url: site.url("/robin"), title: "robin", content: "a red breast" }] });
    searx.answer("lost-birds", { alpha: [{ url: site.url("/gone-wren"), title: "gone", content: "" }], beta: [{ url: site.url("/gone-robin"), title: "gone too", content: "" }] });
    // A refund account holding USDC: what an exact payment settled beyond the delivery is paid back from it.
    refunder = await fx.anvil.fundedAccount();
    await fx.token.mint(refunder.address, USDC);
    const x402 = fx.config({ facilitator: { url: facilitator.url } }, { settlement: "remote", settlerPrivateKey: undefined, refundPrivateKey: refunder.key });
    ({ service, base } = await startPaidServiceWith(x402, ":memory:", { args: ["--search-url", searx.url, "--rate-limit-per-min", "10000"] }));
    buyer = new x402Client();
    registerExactEvmScheme(buyer, { signer: privateKeyToAccount(fx.buyer.key), networks: [NETWORK] });
    buyer.register(NETWORK as Network, new UptoClient(privateKeyToAccount(fx.buyer.key) as never));
    buyer.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
  }, 180_000);
  afterAll(async () => {
    await service?.close();
    await facilitator?.stop();
    await site?.stop();
    await searx?.stop();
    await fx?.stop();
  });

  const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });
  const settledAmount = (paid: { headers?: Headers }) => {
    const decoded = decodePaymentResponse(paid.headers?.get("payment-response") ?? "");
    return decoded.ok ? decoded.value : undefined;
  };

  it(
    "offers upto for the limit before exact, and settles the search plus the 2 reads delivered of 4",
    async () => {
      const before = await balances();
      const paid = await payOverHttp(buyer, `${base}/v1/web/search`, { query: "songbirds", limit: 4, read: true });
      // The limit: $0.005 + 4 × $0.003; upto first (the official client pays the first it can), exact for buyers without upto.
      expect(paid.offer.accepts.map((a) => [a.scheme, a.amount])).toEqual([["upto", "17000"], ["exact", "17000"]]);
      expect(paid.offer.accepts[0]!.extra).toMatchObject({ assetTransferMethod: "permit2", facilitatorAddress: privateKeyToAccount(fx.settler.key).address });
      expect(paid).toMatchObject({ status: 200, settled: true });
      expect(JSON.parse(paid.text).reads).toEqual({ succeeded: 2, failed: 0 });
      // Delivered: $0.005 + 2 × $0.003.
      expect(settledAmount(paid)).toMatchObject({ success: true, amount: "11000" });
      const after = await balances();
      expect(after.buyer).toBe(before.buyer - 11_000n);
      expect(after.payTo).toBe(before.payTo + 11_000n);
      expect(await service.store.deliveryRefunds.list()).toEqual([]);
      // The receipt keeps what was settled, not the limit.
      expect((await service.store.figures.recentReceipts(10, "settled")).map((r) => r.amount)).toEqual(["11000"]);
      expect(facilitator.calls.filter((c) => c !== "GET /supported")).toEqual(["POST /verify", "POST /settle"]);
    },
    120_000,
  );

  it(
    "charges the search only when every read fails",
    async () => {
      const before = await balances();
      const paid = await payOverHttp(buyer, `${base}/v1/web/search`, { query: "lost-birds", limit: 2, read: true });
      expect(paid.offer.accepts[0]).toMatchObject({ scheme: "upto", amount: "11000" });
      expect(paid).toMatchObject({ status: 200, settled: true });
      expect(JSON.parse(paid.text).reads).toEqual({ succeeded: 0, failed: 2 });
      expect(settledAmount(paid)).toMatchObject({ success: true, amount: "5000" });
      expect((await balances()).buyer).toBe(before.buyer - 5_000n);
    },
    120_000,
  );

  it(
    "pays a buyer without upto back: exact settles the limit, and the undelivered reads are refunded from the refund account",
    async () => {
      const exactOnly = new x402Client();
      registerExactEvmScheme(exactOnly, { signer: privateKeyToAccount(fx.buyer.key), networks: [NETWORK] });
      exactOnly.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
      const before = await balances();
      const paid = await payOverHttp(exactOnly, `${base}/v1/web/search`, { query: "songbirds", limit: 4, read: true });
      expect(paid).toMatchObject({ status: 200, settled: true });
      expect(settledAmount(paid)).toMatchObject({ success: true, amount: "17000" });
      const deadline = Date.now() + 60_000;
      let refunds = await service.store.deliveryRefunds.list();
      while (refunds[0]?.state !== "paid" && Date.now() < deadline) {
        await Bun.sleep(200);
        refunds = await service.store.deliveryRefunds.list();
      }
      expect(refunds).toMatchObject([{ operationId: "web.search", priceMicros: 6_000, quotedMicros: 17_000, state: "paid" }]);
      // Net: the search and the 2 reads delivered.
      expect((await balances()).buyer).toBe(before.buyer - 11_000n);
    },
    120_000,
  );

  it(
    "charges nothing for a search that finds nothing",
    async () => {
      const before = await balances();
      const refused = await payOverHttp(buyer, `${base}/v1/web/search`, { query: "no-such-bird", read: true });
      expect(refused).toMatchObject({ status: 404, settled: false });
      expect(await balances()).toEqual(before);
    },
    120_000,
  );
});
