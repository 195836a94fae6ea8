/**
 * web.map sold over HTTP, MCP and A2A from the one registry, paid by the official x402 client on
 * anvil; a hostile sitemap (a gzip bomb) is refused and charges nothing.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { gzipSync } from "node:zlib";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { x402Client } from "@x402/core/client";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { payOverA2a, payOverHttp, payOverMcp } from "../support/paid-orders.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { expectRefusedUnpaid } from "../support/refused-payments.ts";

describe("paid web.map", () => {
  let site: SiteServer;
  let bomb: SiteServer;
  let stage: PaidStage;
  let buyer: x402Client;
  let mcp: Client;

  beforeAll(async () => {
    site = startSiteServer();
    site.set("/", `<html><body><a href="/guide">Guide</a></body></html>`);
    site.set("/sitemap.xml", `<?xml version="1.0"?><urlset><url><loc>${site.url("/news")}</loc></url></urlset>`, "application/xml");
    bomb = startSiteServer();
    bomb.set("/", `<html><body><a href="/a">a</a></body></html>`);
    bomb.set("/sitemap.xml", gzipSync(new Uint8Array(51 * 1024 * 1024), { level: 9 }), "application/gzip");
    stage = await startPaidStage({ args: ["--rate-limit-per-min", "10000"] });
    buyer = stage.officialBuyer();
    mcp = await stage.mcpClient("web-map-paid-test");
  }, 90_000);
  afterAll(async () => {
    await stage?.stop();
    await site?.stop();
    await bomb?.stop();
  });

  const buyerBalance = () => stage.fx.token.balanceOf(stage.fx.buyer.address);
  const expectedUrls = () => [site.url("/news"), site.url("/guide")];

  it("is paid once over each transport and answers the site's URLs", async () => {
    for (const order of [
      () => payOverHttp(buyer, `${stage.base}/v1/web/map`, { url: site.url("/") }),
      () => payOverMcp(buyer, mcp, "web_map", { url: site.url("/") }),
      () => payOverA2a(buyer, stage.base, "web.map", { url: site.url("/") }),
    ]) {
      const before = await buyerBalance();
      const paid = await order();
      expect(paid.offer.accepts[0]!.amount).toBe("10000");
      expect(paid).toMatchObject({ status: 200, settled: true });
      for (const url of expectedUrls()) expect(paid.text).toContain(url);
      expect(await buyerBalance()).toBe(before - 10_000n);
    }
  });

  it("charges nothing for bad input sent with a real payment: limits out of range, hostile patterns, hostile start pages", async () => {
    const paid = await expectRefusedUnpaid(stage, `${stage.base}/v1/web/map`, { url: site.url("/") }, [
      [{ url: site.url("/"), limit: 100_001 }, 400, "INVALID_REQUEST"],
      [{ url: site.url("/"), search: "x".repeat(20_000) }, 400, "INVALID_REQUEST"],
      [{ url: site.url("/"), include: ["(?<=x)y"] }, 400, "PATTERN_INVALID"],
      [{ url: site.url("/"), include: ["((a{1,30}){1,30})"] }, 400, "PATTERN_INVALID"],
      [{ url: "http://10.0.0.1/" }, 422, "TARGET_NOT_PUBLIC"],
    ]);
    expect(paid).toEqual({ status: 200, settled: true, spent: 10_000n });
  }, 60_000);

  it("charges nothing for a gzip bomb: 422 SITEMAP_TOO_LARGE", async () => {
    const before = await buyerBalance();
    const refused = await payOverHttp(buyer, `${stage.base}/v1/web/map`, { url: bomb.url("/") });
    expect(refused).toMatchObject({ status: 422, settled: false });
    expect(JSON.parse(refused.text).error).toBe("SITEMAP_TOO_LARGE");
    expect(await buyerBalance()).toBe(before);
  });
});
