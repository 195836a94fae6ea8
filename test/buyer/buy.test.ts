/**
 * `tollbooth buy` with the official x402 client against a Tollbooth with payments on, settled on a
 * real anvil: it pays and verifies the signed evidence; refuses above --max-usd, at the daily cap,
 * for a key file others may read or that is missing, for an asset it was not told to accept and for
 * a 402 the client cannot sign, each before any signature; and signs only once when the seller
 * answers 402 again (a price changed between the preview and the payment).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buy, type BuyOptions } from "../../src/buyer/buy.ts";
import { BuyerRefusal } from "../../src/buyer/key-file.ts";
import { encodePaymentRequired } from "../../src/x402/headers.ts";
import { repoRoot } from "../support/binary-build.ts";
import { type BuyerStage, countingFetch, withBuyerPage } from "../support/paid-stage.ts";
import type { SiteServer } from "../support/site-server.ts";
import { type EvmFixture, NETWORK } from "../x402/evm-fixture.ts";

let stage: BuyerStage;
let fx: EvmFixture;
let site: SiteServer;
let base: string;
let tmp: string;
let keyFile: string;

beforeAll(async () => {
  stage = await withBuyerPage("tb-buy-", "<html><head><title>Bought</title></head><body><main><h1>Bought page</h1><p>Evidence worth paying for, twice over.</p></main></body></html>");
  ({ fx, site, base, tmp, keyFile } = stage);
}, 60_000);

afterAll(async () => {
  await stage?.stop();
});

const options = (over: Partial<BuyOptions> = {}): BuyOptions => ({
  url: `${base}/v1/web/read`,
  json: JSON.stringify({ url: site.url("/page") }),
  keyFile,
  network: NETWORK,
  asset: fx.token.address,
  maxUsd: 0.05,
  dailyCapUsd: 1,
  spendLog: join(tmp, `spend-${Math.random().toString(36).slice(2)}.jsonl`),
  ...over,
});

describe("tollbooth buy pays", () => {
  it("pays the price once with the official client, prints the receipt, and verifies the signed evidence", async () => {
    const before = await fx.token.balanceOf(fx.buyer.address);
    const { f, seen } = countingFetch();
    const spendLog = join(tmp, "paid.jsonl");
    const outcome = await buy(options({ fetch: f, spendLog }));
    expect(outcome.status).toBe(200);
    expect(outcome.paid).toEqual({ usd: 0.005, network: NETWORK, payTo: fx.payTo });
    expect(outcome.receipt).toMatchObject({ success: true, network: NETWORK, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(outcome.evidence).toMatchObject({ valid: true });
    expect((outcome.body as { text: string }).text).toContain("Evidence worth paying for");
    expect(seen.signatures).toBe(1);
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(before - 5000n);
    const log = readFileSync(spendLog, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(log).toMatchObject([
      { event: "signed", usd: 0.005, network: NETWORK, pay_to: fx.payTo, amount: "5000" },
      { event: "settled", transaction: outcome.receipt!.transaction, status: 200 },
    ]);
  });

  it("works as the command: exit 0 and one JSON document with the receipt and the evidence check", async () => {
    const spendLog = join(tmp, "cli.jsonl");
    const proc = Bun.spawn(
      [process.execPath, join(repoRoot, "src/main.ts"), "buy", `${base}/v1/web/read`, "--json", JSON.stringify({ url: site.url("/page") }), "--network", NETWORK, "--asset", fx.token.address, "--key-file", keyFile, "--spend-log", spendLog],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ status: 200, receipt: { success: true }, evidence: { valid: true }, result: { ok: true } });
  });
});

describe("tollbooth buy refuses before any signature", () => {
  const refusedWithoutSignature = async (over: Partial<BuyOptions>, message: RegExp) => {
    const before = await fx.token.balanceOf(fx.buyer.address);
    const { f, seen } = countingFetch();
    const spendLog = join(tmp, `refused-${Math.random().toString(36).slice(2)}.jsonl`);
    const attempt = buy(options({ fetch: f, spendLog, ...over }));
    expect(attempt).rejects.toThrow(BuyerRefusal);
    await attempt.catch((error: Error) => expect(error.message).toMatch(message));
    expect(seen.signatures).toBe(0);
    expect(existsSync(spendLog)).toBe(false);
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(before);
    return seen;
  };

  it("a price above --max-usd", async () => {
    await refusedWithoutSignature({ maxUsd: 0.004 }, /price is \$0\.005 and --max-usd is \$0\.004/);
  });

  it("a key file that group or others may read, or that is missing (before any request)", async () => {
    const open = join(tmp, "open.key");
    writeFileSync(open, fx.buyer.key);
    chmodSync(open, 0o644);
    expect((await refusedWithoutSignature({ keyFile: open }, /may be read by group or others/)).requests).toBe(0);
    expect((await refusedWithoutSignature({ keyFile: join(tmp, "none.key") }, /does not exist/)).requests).toBe(0);
  });

  it("an asset it was not told to accept, and a network the seller does not offer", async () => {
    await refusedWithoutSignature({ asset: "0x000000000000000000000000000000000000dEaD" }, /asks for asset .* not 0x0000/);
    await refusedWithoutSignature({ network: "base" }, /offers no payment on eip155:8453/);
  });

  it("stops at the daily cap, counting what was signed today", async () => {
    const spendLog = join(tmp, "cap.jsonl");
    const { f, seen } = countingFetch();
    for (let i = 0; i < 2; i++) expect((await buy(options({ fetch: f, spendLog, dailyCapUsd: 0.012 }))).status).toBe(200);
    const attempt = buy(options({ fetch: f, spendLog, dailyCapUsd: 0.012 }));
    expect(attempt).rejects.toThrow(/over the daily cap of \$0\.012/);
    await attempt.catch(() => undefined);
    expect(seen.signatures).toBe(2);
  });
});

describe("sellers that misbehave", () => {
  // A loopback seller whose 402 we write: the offer Tollbooth's gate would make, edited.
  const offer = () => ({ scheme: "exact", network: NETWORK, amount: "5000", asset: fx.token.address, payTo: fx.payTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } });
  function seller(first: Record<string, unknown>, then: Record<string, unknown> = first) {
    let calls = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        const accepts = [calls++ === 0 ? first : then];
        const required = { x402Version: 2, resource: { url: "http://127.0.0.1/x", description: "x", mimeType: "application/json" }, accepts } as never;
        return new Response(JSON.stringify({ ok: false, error: "PAYMENT_REQUIRED" }), { status: 402, headers: { "content-type": "application/json", "PAYMENT-REQUIRED": encodePaymentRequired(required) } });
      },
    });
    return { url: `http://127.0.0.1:${server.port}/x`, stop: () => server.stop(true) };
  }

  it("a 402 without the fields the client needs is refused unsigned", async () => {
    const { payTo: _dropped, ...noPayTo } = offer();
    const s = seller(noPayTo);
    const { f, seen } = countingFetch();
    await expect(buy(options({ url: s.url, fetch: f }))).rejects.toThrow(/lacks payTo/);
    expect(seen.signatures).toBe(0);
    s.stop();
  });

  it("a price that changed between the preview and the payment gets one signature (for the previewed price) and no second", async () => {
    const s = seller(offer(), { ...offer(), amount: "9000" });
    const { f, seen } = countingFetch();
    const spendLog = join(tmp, "changed.jsonl");
    const outcome = await buy(options({ url: s.url, fetch: f, spendLog }));
    expect(outcome.status).toBe(402);
    expect(seen.signatures).toBe(1);
    expect(readFileSync(spendLog, "utf8")).toContain('"event":"not_settled"');
    s.stop();
  });
});
