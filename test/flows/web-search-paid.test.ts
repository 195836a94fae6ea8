/**
 * web.search sold over HTTP, MCP and A2A from the one registry, paid by the official x402 client on
 * anvil, against a real searx: the offer states the search plus a read per result, the money moves
 * once, the reads come back signed; a search that finds nothing is refused and not charged.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { x402Client } from "@x402/core/client";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { payOverA2a, payOverHttp, payOverMcp } from "../support/paid-orders.ts";
import { type Searx, startSearx } from "../support/searx.ts";
import { skipWithout } from "../support/requirements.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { NETWORK } from "../x402/evm-fixture.ts";
import { expectRefusedUnpaid } from "../support/refused-payments.ts";

const missing = skipWithout("searx", "paid web.search on a real searx") ? "searx" : undefined;

describe.skipIf(missing !== undefined)("paid web.search", () => {
  let searx: Searx;
  let site: SiteServer;
  let stage: PaidStage;
  let buyer: x402Client;
  let mcp: Client;

  beforeAll(async () => {
    searx = await startSearx();
    site = startSiteServer();
    for (const name of ["wren", "robin"]) site.set(`/${name}`, `<!doctype html><html><head><title>${name}</title></head><body><main><h1>${name}</h1><p>The ${name} sings at dawn in the hedge by the lane.</p></main></body></html>`);
    searx.answer("songbirds", { alpha: [{ url: site.url("/wren"), title: "wren", content: "a small bird" }], beta: [{ url: site.url("/robin"), title: "robin", content: "a red breast" }] });
    stage = await startPaidStage({ args: ["--search-url", searx.url, "--rate-limit-per-min", "10000"] });
    buyer = stage.officialBuyer();
    mcp = await stage.mcpClient("web-search-paid-test");
  }, 90_000);
  afterAll(async () => {
    await stage?.stop();
    await site?.stop();
    await searx?.stop();
  });

  const balances = async () => ({ buyer: await stage.fx.token.balanceOf(stage.fx.buyer.address), payTo: await stage.fx.token.balanceOf(stage.fx.payTo) });
  const input = { query: "songbirds", limit: 2, read: true };

  it("over HTTP: offers the search plus a read per result, is paid once, and returns both results read and signed", async () => {
    const before = await balances();
    const paid = await payOverHttp(buyer, `${stage.base}/v1/web/search`, input);
    // $0.005 for the search + 2 × $0.003 for the reads, in USDC's 6 decimals.
    expect(paid.offer.accepts[0]).toMatchObject({ scheme: "exact", network: NETWORK, amount: "11000" });
    expect(paid).toMatchObject({ status: 200, settled: true });
    const body = JSON.parse(paid.text) as { results: { url: string; read: { ok: boolean; attestation?: unknown } }[]; reads: unknown };
    expect(body.reads).toEqual({ succeeded: 2, failed: 0 });
    expect(body.results.map((r) => r.url).sort()).toEqual([site.url("/robin"), site.url("/wren")]);
    expect(body.results.every((r) => r.read.ok && r.read.attestation !== undefined)).toBe(true);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 11_000n);
    expect(after.payTo).toBe(before.payTo + 11_000n);
  });

  it("over HTTP: a search that finds nothing is 404 SEARCH_NO_RESULTS and charges nothing", async () => {
    const before = await balances();
    const refused = await payOverHttp(buyer, `${stage.base}/v1/web/search`, { query: "no-such-bird" });
    expect(refused).toMatchObject({ status: 404, settled: false });
    expect(JSON.parse(refused.text).error).toBe("SEARCH_NO_RESULTS");
    expect(await balances()).toEqual(before);
  });

  it("over HTTP with exact: a search that delivers 2 of 4 reads settles the quote and records the 2 undelivered reads as a refund due", async () => {
    const before = await balances();
    const paid = await payOverHttp(buyer, `${stage.base}/v1/web/search`, { query: "songbirds", limit: 4, read: true });
    // The offer is the limit: $0.005 + 4 × $0.003; the description says how the rest is handled.
    // Settled by our own key (no facilitator listing upto): exact only.
    expect(paid.offer.accepts.map((a) => [a.scheme, a.amount])).toEqual([["exact", "17000"]]);
    expect(paid.offer.resource.description).toContain("records the rest as a refund due");
    expect(paid).toMatchObject({ status: 200, settled: true });
    expect(JSON.parse(paid.text).reads).toEqual({ succeeded: 2, failed: 0 });
    expect((await balances()).buyer).toBe(before.buyer - 17_000n);
    const due = (await stage.service.store.deliveryRefunds.list()).filter((r) => r.quotedMicros === 17_000);
    expect(due).toHaveLength(1);
    expect(due[0]).toMatchObject({ operationId: "web.search", network: NETWORK, payer: stage.fx.buyer.address.toLowerCase(), priceMicros: 6_000, state: "due" });
    expect(due[0]!.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("over HTTP with exact: a search whose reads all fail returns its results with inline errors, and every read is owed back (the search alone is charged)", async () => {
    searx.answer("lost-birds", { alpha: [{ url: site.url("/gone-wren"), title: "gone", content: "" }], beta: [{ url: site.url("/gone-robin"), title: "gone too", content: "" }] });
    const before = await balances();
    const paid = await payOverHttp(buyer, `${stage.base}/v1/web/search`, { query: "lost-birds", limit: 2, read: true });
    expect(paid).toMatchObject({ status: 200, settled: true });
    const body = JSON.parse(paid.text) as { reads: unknown; results: { read: { ok: boolean } }[] };
    expect(body.reads).toEqual({ succeeded: 0, failed: 2 });
    expect(body.results.every((r) => !r.read.ok)).toBe(true);
    expect((await balances()).buyer).toBe(before.buyer - 11_000n);
    const due = (await stage.service.store.deliveryRefunds.list()).filter((r) => r.quotedMicros === 11_000);
    expect(due.map((r) => r.priceMicros)).toEqual([6_000]);
  });

  it("over HTTP: charges nothing for bad input sent with a real payment: a 20 KB query, limits out of range", async () => {
    const paid = await expectRefusedUnpaid(stage, `${stage.base}/v1/web/search`, { query: "songbirds", limit: 2 }, [
      [{ query: "x".repeat(20_000), limit: 2 }, 400, "INVALID_REQUEST"],
      [{ query: "songbirds", limit: 21 }, 400, "INVALID_REQUEST"],
      [{ query: "songbirds", limit: 0 }, 400, "INVALID_REQUEST"],
      [{ query: "songbirds", limit: 2, read: { max_chars: 0 } }, 400, "INVALID_REQUEST"],
    ]);
    expect(paid).toMatchObject({ status: 200, settled: true });
    expect(paid.spent).toBeGreaterThan(0n);
  }, 60_000);

  it("over MCP: the web_search tool answers with the offer, then with the results once paid", async () => {
    expect((await mcp.listTools()).tools.map((t) => t.name)).toContain("web_search");
    const before = await balances();
    const paid = await payOverMcp(buyer, mcp, "web_search", input);
    expect(paid.offer.accepts[0]!.amount).toBe("11000");
    expect(paid).toMatchObject({ status: 200, settled: true });
    expect(paid.text).toContain(site.url("/wren"));
    expect((await balances()).buyer).toBe(before.buyer - 11_000n);
  });

  it("over A2A: the web.search skill asks for payment on its task, then completes it with the results", async () => {
    const before = await balances();
    const paid = await payOverA2a(buyer, stage.base, "web.search", input);
    expect(paid.offer.accepts[0]!.amount).toBe("11000");
    expect(paid.settled).toBe(true);
    expect(paid.text).toContain(site.url("/robin"));
    expect((await balances()).buyer).toBe(before.buyer - 11_000n);
  });
});
