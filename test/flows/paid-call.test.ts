/**
 * The whole service with payments on: the official x402 buyer (@x402/fetch + @x402/evm) pays the
 * built-in web/read plugin, settled on a real anvil. Failed work is never settled; the 402 is a
 * free preview with the exact total for the body; receipts can be looked up.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { RunningService } from "../../src/boot.ts";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { decodePaymentRequired, decodePaymentResponse } from "../../src/x402/headers.ts";
import { type EvmFixture, startEvmFixture } from "../x402/evm-fixture.ts";
import { startPaidService } from "../support/paid-service.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";

let fx: EvmFixture;
let site: SiteServer;
let service: RunningService;
let base: string;

beforeAll(async () => {
  fx = await startEvmFixture();
  site = startSiteServer();
  site.set("/page", "<html><head><title>Paid</title></head><body><main><h1>Paid page</h1><p>Worth every micro-dollar of it.</p></main></body></html>");
  ({ service, base } = await startPaidService(fx));
}, 60_000);

afterAll(async () => {
  await service?.close();
  await site?.stop();
  await fx?.stop();
});

const postJson = (f: typeof fetch, path: string, body: unknown) =>
  f(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("paid web/read", () => {
  it("answers an unpaid call with a free 402 preview stating the exact total for the body", async () => {
    const single = await postJson(fetch, "/v1/web/read", { url: site.url("/page") });
    expect(single.status).toBe(402);
    const decoded = decodePaymentRequired(single.headers.get("payment-required") ?? "");
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.value.accepts[0]).toMatchObject({ scheme: "exact", amount: "5000", payTo: fx.payTo });
    expect(decoded.value.resource?.url).toBe(`${base}/v1/web/read`);
    const batch = await postJson(fetch, "/v1/web/read", { urls: [site.url("/page"), site.url("/page?2"), site.url("/page?3")] });
    const batchRequired = decodePaymentRequired(batch.headers.get("payment-required") ?? "");
    if (!batchRequired.ok) throw new Error(batchRequired.reason);
    expect(batchRequired.value.accepts[0]!.amount).toBe("9000");
    expect(site.hits("/page")).toBe(0);
  });

  it("rejects invalid input with 400 before any payment is asked", async () => {
    const res = await postJson(fetch, "/v1/web/read", { url: site.url("/page"), extra: true });
    expect(res.status).toBe(400);
    expect(res.headers.get("payment-required")).toBeNull();
  });

  it("is paid by the official client: money moves once, the result carries PAYMENT-RESPONSE and a receipt exists", async () => {
    const buyerBefore = await fx.token.balanceOf(fx.buyer.address);
    const payToBefore = await fx.token.balanceOf(fx.payTo);
    const res = await postJson(fx.officialFetch(), "/v1/web/read", { url: site.url("/page") });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; request_id: string };
    expect(body.text).toContain("Worth every micro-dollar");
    const receipt = decodePaymentResponse(res.headers.get("payment-response") ?? "");
    if (!receipt.ok) throw new Error(receipt.reason);
    expect(receipt.value.success).toBe(true);
    expect(await fx.token.balanceOf(fx.payTo)).toBe(payToBefore + 5000n);
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(buyerBefore - 5000n);

    const lookup = await fetch(`${base}/v1/payments/${receipt.value.transaction}`);
    expect(await lookup.json()).toMatchObject({ ok: true, payment: { state: "settled" } });

    // Signed after settlement: the statement names the settlement transaction, and verifies.
    const signed = body as unknown as { attestation: { jws: string } };
    const statement = JSON.parse(Buffer.from(signed.attestation.jws.split(".")[1]!, "base64url").toString("utf8"));
    expect(statement).toMatchObject({ server: base, payment: { network: receipt.value.network, transaction: receipt.value.transaction } });
    const jwks = await (await fetch(`${base}/.well-known/jwks.json`)).json();
    expect(await verifyEvidence(body, jwks)).toMatchObject({ kind: "checked", valid: true });
  });

  it("settles nothing when the work fails, and the buyer can pay for a retry with the same money", async () => {
    const buyerBefore = await fx.token.balanceOf(fx.buyer.address);
    const res = await postJson(fx.officialFetch(), "/v1/web/read", { url: site.url("/missing") });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: string }).error).toBe("SOURCE_ERROR_STATUS");
    expect(res.headers.get("payment-response")).toBeNull();
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(buyerBefore);
  });

  it("sells a skill from the registry the same way", async () => {
    const preview = await postJson(fetch, "/v1/jobs/capabilities", {});
    expect([402, 400]).toContain(preview.status);
  });
});
