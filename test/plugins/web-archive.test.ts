/**
 * web.archive sold from the registry (issue 43): paid by the official x402 client on anvil over HTTP,
 * MCP and A2A with the real Chromium; the signed statement names the WACZ's hash and the key that
 * signed the package, and verifies with the server's published keys; a page whose own document does
 * not fit and a refused request are never charged.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { skipWithout } from "../support/requirements.ts";
import type { PaymentPayload, PaymentRequired } from "../../src/x402/messages.ts";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { connectPaidTransports, type PaidTransports } from "../support/paid-transports.ts";
import { type RenderSite, startRenderSite } from "../web/render/render-site.ts";

const browser = !skipWithout("chromium", "web.archive sold over HTTP, MCP and A2A");
const SLOW = 120_000;

let stage: PaidStage;
let site: RenderSite;
let transports: PaidTransports;

beforeAll(async () => {
  if (!browser) return;
  site = await startRenderSite();
  stage = await startPaidStage({ args: ["--rate-limit-per-min", "10000", "--render-warm", "on"] });
  transports = await connectPaidTransports(stage.base, stage.officialBuyer(), { path: "/v1/web/archive", tool: "web_archive", skill: "web.archive" });
}, SLOW);

afterAll(async () => {
  await transports?.close();
  await stage?.stop();
  await site?.stop();
}, SLOW);

const sign = async (offer: PaymentRequired) => (await stage.officialBuyer().createPaymentPayload(offer as never)) as unknown as PaymentPayload;
const balances = async () => ({ buyer: await stage.fx.token.balanceOf(stage.fx.buyer.address), payTo: await stage.fx.token.balanceOf(stage.fx.payTo) });
const jwks = async () => (await (await fetch(`${stage.base}/.well-known/jwks.json`)).json()) as Parameters<typeof verifyEvidence>[1];

describe.skipIf(!browser).each(["http", "mcp", "a2a"] as const)("paid web.archive over %s", (name) => {
  it("is paid once for a signed WACZ whose statement names its hash and the package key, and which verifies whole", async () => {
    const before = await balances();
    const order = await transports[name].order({ url: site.url("/archive.html") });
    expect(order.offer.accepts[0]).toMatchObject({ scheme: "exact", amount: "30000" });
    const paid = await order.pay(await sign(order.offer));
    expect(paid.settled).toBe(true);
    const result = structuredClone(paid.result) as Record<string, unknown>;
    expect(result).toMatchObject({ ok: true, content_type: "application/wacz", content_is_untrusted: true, screenshot: { width: 1280, height: 800 } });
    const wacz = Buffer.from(result.wacz_base64 as string, "base64");
    expect(result.package_sha256).toBe(createHash("sha256").update(wacz).digest("hex"));
    expect((result.warnings as string[]).some((w) => w.includes("no package signing key"))).toBe(false);
    const outcome = await verifyEvidence(result, await jwks());
    if (outcome.kind !== "checked") throw new Error(outcome.message);
    expect(outcome.failed).toBeUndefined();
    expect(outcome.checks.map((c) => c.part)).toEqual(expect.arrayContaining(["package", "wacz.digest", "wacz.signature", "wacz.key"]));
    expect(outcome.statements[0]).toMatchObject({
      format: "wacz",
      package_sha256: result.package_sha256,
      wacz_public_key: result.wacz_public_key,
      payment: { transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 30_000n);
    expect(after.payTo).toBe(before.payTo + 30_000n);
  }, SLOW);

  it("never charges a page whose own document does not fit max_bytes: 422 ARCHIVE_TOO_LARGE, the balances unchanged", async () => {
    const before = await balances();
    const order = await transports[name].order({ url: site.url("/padded.html"), max_bytes: 65_536, screenshot: false });
    const failed = await order.pay(await sign(order.offer));
    expect(failed.settled).toBe(false);
    expect(failed.error).toBe("ARCHIVE_TOO_LARGE");
    expect(await balances()).toEqual(before);
  }, SLOW);
});

describe.skipIf(!browser)("web.archive over HTTP", () => {
  it("prices a larger cap at 0.05 and a browserless archive at 0.01, and refuses a screenshot without the browser with 400 before any offer", async () => {
    expect((await transports.http.order({ url: site.url("/archive.html"), max_bytes: 10 * 1024 * 1024 })).offer.accepts[0]!.amount).toBe("50000");
    expect((await transports.http.order({ url: site.url("/archive.html"), render: false })).offer.accepts[0]!.amount).toBe("10000");
    const res = await fetch(`${stage.base}/v1/web/archive`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url("/archive.html"), render: false, screenshot: true }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false });
  });
});
