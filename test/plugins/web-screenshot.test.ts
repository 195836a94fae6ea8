/**
 * web.screenshot sold from the registry (issue 43): paid by the official x402 client on anvil over
 * HTTP, MCP and A2A with the real Chromium; the signed statement names the image's hash and the viewport
 * and verifies (in process and with `tollbooth verify`), not once a byte of the image changed; a
 * selector matching nothing, a hostile page and a refused request are never charged.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listProcessTree } from "../../scripts/bench/render-rss.ts";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { skipWithout } from "../support/requirements.ts";
import type { PaymentPayload, PaymentRequired } from "../../src/x402/messages.ts";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { connectPaidTransports, type PaidTransports } from "../support/paid-transports.ts";
import { type RenderSite, startRenderSite } from "../web/render/render-site.ts";

const browser = !skipWithout("chromium", "web.screenshot sold over HTTP, MCP and A2A");
const SLOW = 90_000;

let stage: PaidStage;
let site: RenderSite;
let transports: PaidTransports;
let tmp: string;

beforeAll(async () => {
  site = await startRenderSite();
  stage = await startPaidStage({ args: ["--rate-limit-per-min", "10000", "--render-warm", "on"] });
  transports = await connectPaidTransports(stage.base, stage.officialBuyer(), { path: "/v1/web/screenshot", tool: "web_screenshot", skill: "web.screenshot" });
  tmp = mkdtempSync(join(tmpdir(), "screenshot-verify-"));
}, SLOW);

afterAll(async () => {
  await transports?.close();
  await stage?.stop();
  await site?.stop();
  rmSync(tmp, { recursive: true, force: true });
}, SLOW);

const sign = async (offer: PaymentRequired) => (await stage.officialBuyer().createPaymentPayload(offer as never)) as unknown as PaymentPayload;
const balances = async () => ({ buyer: await stage.fx.token.balanceOf(stage.fx.buyer.address), payTo: await stage.fx.token.balanceOf(stage.fx.payTo) });
const jwks = async () => (await (await fetch(`${stage.base}/.well-known/jwks.json`)).json()) as Parameters<typeof verifyEvidence>[1];

/** Browsers this test process started: Chromium with a renderer profile (browser-launch.ts). */
function browsersStarted(): number {
  return listProcessTree(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").some((arg) => arg.startsWith("--user-data-dir=") && arg.includes("tollbooth-chromium-"));
    } catch {
      return false;
    }
  }).length;
}

describe.skipIf(!browser)("web.screenshot service start", () => {
  it("starts the browser with the server (--render-warm on), before any render asks for it", async () => {
    const until = Date.now() + 30_000;
    while (browsersStarted() === 0 && Date.now() < until) await Bun.sleep(100);
    expect(browsersStarted()).toBeGreaterThan(0);
  }, SLOW);
});

describe.skipIf(!browser).each(["http", "mcp", "a2a"] as const)("paid web.screenshot over %s", (name) => {
  it("is paid once for a capture whose signed statement names the image's hash, size and viewport", async () => {
    const before = await balances();
    const order = await transports[name].order({ url: site.url("/shot.html"), viewport: { width: 400, height: 300 }, selector: "#card" });
    expect(order.offer.accepts[0]).toMatchObject({ scheme: "exact", amount: "10000" });
    const paid = await order.pay(await sign(order.offer));
    expect(paid.settled).toBe(true);
    const result = structuredClone(paid.result) as Record<string, unknown>;
    expect(result).toMatchObject({ ok: true, width: 200, height: 120, format: "png", truncated: false, content_is_untrusted: true, selector: "#card" });
    const image = Buffer.from(result.image_base64 as string, "base64");
    expect(result.image_sha256).toBe(createHash("sha256").update(image).digest("hex"));
    const outcome = await verifyEvidence(result, await jwks());
    expect(outcome.kind === "checked" && outcome.valid).toBe(true);
    if (outcome.kind !== "checked") throw new Error(outcome.message);
    expect(outcome.statements[0]).toMatchObject({
      format: "screenshot",
      image_sha256: result.image_sha256,
      image: { content_type: "image/png", width: 200, height: 120 },
      viewport: { width: 400, height: 300, device_scale_factor: 1, full_page: false },
      payment: { transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 10_000n);
    expect(after.payTo).toBe(before.payTo + 10_000n);
  }, SLOW);

  it("never charges a selector that matches nothing: 422 SELECTOR_NOT_FOUND, the balances unchanged", async () => {
    const before = await balances();
    const order = await transports[name].order({ url: site.url("/shot.html"), selector: "#nowhere" });
    const failed = await order.pay(await sign(order.offer));
    expect(failed.settled).toBe(false);
    expect(failed.error).toBe("SELECTOR_NOT_FOUND");
    expect(await balances()).toEqual(before);
  }, SLOW);
});

describe.skipIf(!browser)("web.screenshot over HTTP", () => {

  it("prices a full page at 0.02 and refuses an unparsable selector with 400 before any offer", async () => {
    const full = await transports.http.order({ url: site.url("/shot.html"), full_page: true });
    expect(full.offer.accepts[0]!.amount).toBe("20000");
    const res = await fetch(`${stage.base}/v1/web/screenshot`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url("/shot.html"), hide: ["#ok", "div[["] }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, error: "SELECTOR_INVALID" });
  });

  it("ends an alert loop at the render deadline with 504 RENDER_TIMEOUT and charges nothing", async () => {
    const before = await balances();
    const order = await transports.http.order({ url: site.url("/alert-loop.html") });
    const failed = await order.pay(await sign(order.offer));
    expect(failed.settled).toBe(false);
    expect(failed.error).toBe("RENDER_TIMEOUT");
    expect(await balances()).toEqual(before);
  }, SLOW);

  it("`tollbooth verify` accepts a saved screenshot result and refuses it once one byte of the image changed", async () => {
    const order = await transports.http.order({ url: site.url("/shot.html"), viewport: { width: 320, height: 240 }, format: "jpeg", quality: 60 });
    const paid = await order.pay(await sign(order.offer));
    expect(paid.settled).toBe(true);
    const result = paid.result as Record<string, unknown>;
    writeFileSync(join(tmp, "jwks.json"), JSON.stringify(await jwks()));
    const verify = async (saved: unknown) => {
      writeFileSync(join(tmp, "result.json"), JSON.stringify(saved));
      const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "src/main.ts"), "verify", join(tmp, "result.json"), "--jwks", join(tmp, "jwks.json")], { stdout: "pipe", stderr: "pipe" });
      return { code: await proc.exited, out: await new Response(proc.stdout).text() };
    };
    const valid = await verify(result);
    expect(valid.code).toBe(0);
    expect(valid.out).toContain("ok     image:");
    expect(valid.out).toContain("ok     viewport:");
    const image = Buffer.from(result.image_base64 as string, "base64");
    image[image.length - 3]! ^= 0x01;
    const changed = await verify({ ...result, image_base64: image.toString("base64") });
    expect(changed.code).toBe(1);
    expect(changed.out).toContain("INVALID: image does not hold");
  }, SLOW);
});
