/**
 * web.crawl sold over HTTP, MCP and A2A from the one registry, paid by the official x402 client on
 * anvil: the exact price of its limit, a crawl that starts only once paid and is then read by the
 * payer with the access token the paid answer carried, its pages signed.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { x402Client } from "@x402/core/client";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { payOverA2a, payOverHttp, payOverMcp } from "../support/paid-orders.ts";
import type { SiteServer } from "../support/site-server.ts";
import { startTreeSite } from "../crawl/crawl-site.ts";

describe("paid web.crawl", () => {
  let site: SiteServer;
  let stage: PaidStage;
  let buyer: x402Client;
  let mcp: Client;

  beforeAll(async () => {
    site = startTreeSite(20);
    stage = await startPaidStage({ args: ["--rate-limit-per-min", "10000", "--crawl-host-delay-ms", "0"] });
    buyer = stage.officialBuyer();
    mcp = new Client({ name: "web-crawl-paid-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${stage.base}/mcp`)));
  }, 90_000);
  afterAll(async () => {
    await mcp?.close();
    await stage?.stop();
    await site?.stop();
  });

  const buyerBalance = () => stage.fx.token.balanceOf(stage.fx.buyer.address);
  const input = { limit: 3, max_depth: 5, sitemap: "skip" };

  async function pollUntilDone(crawlId: string, token: string) {
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${stage.base}/v1/web/crawl/${crawlId}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { status: string; counts: { fetched: number }; pages: { ok: boolean; attestation?: { jws: string } }[] };
      if (!["queued", "running"].includes(body.status)) return body;
      await Bun.sleep(100);
    }
    throw new Error("crawl did not finish");
  }

  it("is paid once, at the exact price of its limit, over each transport; the payer then reads its signed pages", async () => {
    for (const order of [
      () => payOverHttp(buyer, `${stage.base}/v1/web/crawl`, { ...input, url: site.url("/") }),
      () => payOverMcp(buyer, mcp, "web_crawl", { ...input, url: site.url("/") }),
      () => payOverA2a(buyer, stage.base, "web.crawl", { ...input, url: site.url("/") }),
    ]) {
      const before = await buyerBalance();
      const paid = await order();
      // 3 pages × web/read's batch price (0.003 USDC).
      expect(paid.offer.accepts[0]!.amount).toBe("9000");
      expect(paid.settled).toBe(true);
      expect([200, 202]).toContain(paid.status);
      const crawlId = /crawl_[0-9a-f]{32}/.exec(paid.text)?.[0];
      const token = /ct_[A-Za-z0-9_-]{43}/.exec(paid.text)?.[0];
      expect(crawlId && token).toBeTruthy();
      const done = await pollUntilDone(crawlId!, token!);
      expect(done.status).toBe("completed");
      expect(done.counts.fetched).toBe(3);
      expect(done.pages.every((p) => p.ok && typeof p.attestation?.jws === "string")).toBe(true);
      expect(await buyerBalance()).toBe(before - 9_000n);
    }
  }, 120_000);

  it("answers 202 over HTTP", async () => {
    const paid = await payOverHttp(buyer, `${stage.base}/v1/web/crawl`, { ...input, url: site.url("/") });
    expect(paid.status).toBe(202);
  }, 60_000);
});
