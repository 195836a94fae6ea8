/**
 * web.crawl sold over HTTP, MCP and A2A from the one registry, paid by the official x402 client on
 * anvil: the exact price of its limit, a crawl that starts only once paid and is then read by the
 * payer with its wallet's proof (Sign-In-With-X), its pages signed; another wallet's proof is refused. It pays for what is
 * delivered: a crawl that reads fewer pages than its limit (a small site, a cancel) records the paid
 * share of the rest as a refund due, paid back from the refund account; one that reads its limit
 * records none.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { x402Client } from "@x402/core/client";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { payOverA2a, payOverHttp, payOverMcp } from "../support/paid-orders.ts";
import type { SiteServer } from "../support/site-server.ts";
import { startTreeSite } from "../crawl/crawl-site.ts";
import { NETWORK } from "../x402/evm-fixture.ts";
import { evmProof } from "../support/payer-proof.ts";
import { generatePrivateKey } from "viem/accounts";
import { expectRefusedUnpaid } from "../support/refused-payments.ts";

interface CrawlStatus {
  status: string;
  counts: { fetched: number };
  refund_due_usd?: string;
  pages: { ok: boolean; attestation?: { jws: string } }[];
}

describe("paid web.crawl", () => {
  let site: SiteServer;
  let small: SiteServer;
  let slow: SiteServer;
  let stage: PaidStage;
  let buyer: x402Client;
  let mcp: Client;

  beforeAll(async () => {
    site = startTreeSite(20);
    // 3 pages: /, /p/0, /p/1.
    small = startTreeSite(2);
    // Its Crawl-delay holds the crawl long enough to be cancelled after its first page.
    slow = startTreeSite(20);
    slow.set("/robots.txt", "User-agent: *\nCrawl-delay: 30\nAllow: /\n", "text/plain");
    stage = await startPaidStage({ args: ["--rate-limit-per-min", "10000", "--crawl-host-delay-ms", "0"], refundAccount: true });
    buyer = stage.officialBuyer();
    mcp = await stage.mcpClient("web-crawl-paid-test");
  }, 90_000);
  afterAll(async () => {
    await stage?.stop();
    await site?.stop();
    await small?.stop();
    await slow?.stop();
  });

  const buyerBalance = () => stage.fx.token.balanceOf(stage.fx.buyer.address);
  const input = { limit: 3, max_depth: 5, sitemap: "skip" };

  /** The crawl's status URL asked with the buyer's (or `key`'s) proof, fresh each time. */
  const asPayer = async (crawlId: string, method = "GET", key = stage.fx.buyer.key) => {
    const url = `${stage.base}/v1/web/crawl/${crawlId}`;
    return fetch(url, { method, headers: { "SIGN-IN-WITH-X": await evmProof(key, url, NETWORK) } });
  };
  async function pollUntilDone(crawlId: string) {
    for (let i = 0; i < 300; i++) {
      const res = await asPayer(crawlId);
      const body = (await res.json()) as CrawlStatus;
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
      expect(crawlId).toBeTruthy();
      expect(paid.text).not.toContain("access_token");
      expect((await fetch(`${stage.base}/v1/web/crawl/${crawlId}`)).status).toBe(401);
      expect((await asPayer(crawlId!, "GET", generatePrivateKey())).status).toBe(403);
      const done = await pollUntilDone(crawlId!);
      expect(done.status).toBe("completed");
      expect(done.counts.fetched).toBe(3);
      expect(done.pages.every((p) => p.ok && typeof p.attestation?.jws === "string")).toBe(true);
      expect(done.refund_due_usd).toBeUndefined();
      expect(await buyerBalance()).toBe(before - 9_000n);
    }
    // Each read its whole limit: nothing is owed back.
    expect((await stage.service.store.deliveryRefunds.list()).filter((r) => r.operationId === "web.crawl")).toEqual([]);
  }, 120_000);

  /** The crawl's refund once paid back (the refund payer pays it as soon as it is recorded). */
  async function paidBack(quotedMicros: number) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const refunds = (await stage.service.store.deliveryRefunds.list()).filter((r) => r.operationId === "web.crawl" && r.quotedMicros === quotedMicros);
      if (refunds.every((r) => r.state === "paid") || Date.now() > deadline) return refunds;
      await Bun.sleep(200);
    }
  }

  it("a crawl of a site smaller than its limit records the pages not read as a refund due, paid back to the payer", async () => {
    const before = await buyerBalance();
    const events: { event: string; refund_due_usd?: string }[] = [];
    const hook = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        events.push((await request.json()) as (typeof events)[number]);
        return new Response("ok");
      },
    });
    const webhook = `http://127.0.0.1:${hook.port}/hook`;
    const paid = await payOverHttp(buyer, `${stage.base}/v1/web/crawl`, { limit: 5, max_depth: 5, sitemap: "skip", url: small.url("/"), webhook });
    expect(paid.offer.accepts[0]!.amount).toBe("15000");
    expect(paid.offer.accepts[0]!.scheme).toBe("exact");
    expect(paid.offer.resource.description).toContain("refund due");
    expect(paid.settled).toBe(true);
    const crawlId = /crawl_[0-9a-f]{32}/.exec(paid.text)![0];
    const done = await pollUntilDone(crawlId);
    expect(done).toMatchObject({ status: "completed", stop_reason: "frontier_empty", counts: { fetched: 3 }, refund_due_usd: "0.006" });
    // 15,000 paid for 5 pages, 3 read: 2 × 3,000 back.
    expect(await paidBack(15_000)).toMatchObject([{ network: NETWORK, quotedMicros: 15_000, priceMicros: 6_000, state: "paid" }]);
    expect(await buyerBalance()).toBe(before - 9_000n);
    for (let i = 0; i < 100 && !events.some((e) => e.event === "completed"); i++) await Bun.sleep(100);
    await hook.stop(true);
    expect(events.find((e) => e.event === "completed")).toMatchObject({ refund_due_usd: "0.006" });
  }, 120_000);

  it("a cancelled crawl records the rest of its limit as a refund due, paid back", async () => {
    const before = await buyerBalance();
    const paid = await payOverHttp(buyer, `${stage.base}/v1/web/crawl`, { limit: 4, max_depth: 5, sitemap: "skip", url: slow.url("/") });
    expect(paid.offer.accepts[0]!.amount).toBe("12000");
    const crawlId = /crawl_[0-9a-f]{32}/.exec(paid.text)![0];
    expect((await asPayer(crawlId, "DELETE", generatePrivateKey())).status).toBe(403);
    const res = await asPayer(crawlId, "DELETE");
    const cancelled = (await res.json()) as CrawlStatus;
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.counts.fetched).toBeLessThan(4);
    const owed = (12_000 * (4 - cancelled.counts.fetched)) / 4;
    expect(cancelled.refund_due_usd).toBe(String(owed / 1_000_000));
    expect(await paidBack(12_000)).toMatchObject([{ quotedMicros: 12_000, priceMicros: owed, state: "paid" }]);
    expect(await buyerBalance()).toBe(before - 12_000n + BigInt(owed));
  }, 120_000);

  it("charges nothing for bad input sent with a real payment: hostile start pages, limits out of range, hostile patterns", async () => {
    const paid = await expectRefusedUnpaid(stage, `${stage.base}/v1/web/crawl`, { ...input, url: site.url("/") }, [
      [{ ...input, url: "http://10.0.0.1/" }, 422, "TARGET_NOT_PUBLIC"],
      [{ ...input, url: "http://169.254.169.254/latest/meta-data/" }, 422, "TARGET_NOT_PUBLIC"],
      [{ ...input, url: "file:///etc/passwd" }, 400, "URL_NOT_ALLOWED"],
      [{ ...input, url: site.url("/"), limit: 10_001 }, 400, "INVALID_REQUEST"],
      [{ ...input, url: site.url("/"), include: ["((a{1,30}){1,30})"] }, 400, "PATTERN_INVALID"],
    ]);
    expect(paid).toEqual({ status: 202, settled: true, spent: 9_000n });
  }, 60_000);

  it("answers 202 over HTTP", async () => {
    const paid = await payOverHttp(buyer, `${stage.base}/v1/web/crawl`, { ...input, url: site.url("/") });
    expect(paid.status).toBe(202);
  }, 60_000);
});
