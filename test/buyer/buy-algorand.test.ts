/**
 * `tollbooth buy --network algorand` with the official @x402/avm client against a Tollbooth with
 * Algorand payments on, settled through the loopback algod (test/support/algod.ts: checks
 * signatures, group ids, validity rounds, fees, opt-ins and balances; not a real node): HTTP and
 * MCP purchases pay USDC (ASA 31566704) once and verify the signed evidence; the key file holds a
 * 25-word mnemonic or a base64 secret key, mode 0600; a price above --max-usd, a key file others
 * may read or holding no Algorand key, a payTo that is no Algorand address and a fee payer that is
 * the buyer's own account are refused with no signature and no money moved.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import algosdk from "algosdk";
import { buy, type BuyOptions } from "../../src/buyer/buy.ts";
import { buyMcp } from "../../src/buyer/buy-mcp.ts";
import { BuyerRefusal, readBuyerKey } from "../../src/buyer/key-file.ts";
import { encodePaymentRequired } from "../../src/x402/headers.ts";
import { type FakeAlgod, USDC_ASA } from "../support/algod.ts";
import { repoRoot } from "../support/binary-build.ts";
import { countingFetch, withAlgorandBuyerPage } from "../support/paid-stage.ts";
import type { SiteServer } from "../support/site-server.ts";

const NETWORK = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k";
const PRICE = 10_000n; // web/read on Algorand: $0.01

let stage: Awaited<ReturnType<typeof withAlgorandBuyerPage>>;
let algod: FakeAlgod;
let site: SiteServer;
let base: string;
let buyer: algosdk.Account;
let payTo: algosdk.Account;
let feePayer: algosdk.Account;
let tmp: string;
let mnemonicFile: string;
let base64File: string;

beforeAll(async () => {
  stage = await withAlgorandBuyerPage("tb-buy-algo-", "<html><head><title>Bought</title></head><body><main><h1>Bought on Algorand</h1><p>Evidence paid for in USDC on Algorand.</p></main></body></html>");
  ({ algod, site, base, buyer, payTo, feePayer, tmp } = stage);
  mnemonicFile = join(tmp, "buyer.mnemonic");
  base64File = join(tmp, "buyer.b64");
  writeFileSync(mnemonicFile, `${algosdk.secretKeyToMnemonic(buyer.sk)}\n`, { mode: 0o600 });
  writeFileSync(base64File, `${Buffer.from(buyer.sk).toString("base64")}\n`, { mode: 0o600 });
}, 60_000);

afterAll(async () => {
  await stage?.stop();
});

const usdc = (a: algosdk.Account) => algod.assetBalance(a.addr.toString(), USDC_ASA) ?? 0n;
const spendLogPath = () => join(tmp, `spend-${Math.random().toString(36).slice(2)}.jsonl`);

const options = (over: Partial<BuyOptions> = {}): BuyOptions => ({
  url: `${base}/v1/web/read`,
  json: JSON.stringify({ url: site.url("/page") }),
  keyFile: mnemonicFile,
  network: "algorand",
  algodUrl: algod.url,
  maxUsd: 0.05,
  dailyCapUsd: 1,
  spendLog: spendLogPath(),
  ...over,
});

describe("tollbooth buy pays on Algorand", () => {
  it("pays USDC once with the official @x402/avm client (mnemonic key file), prints the receipt and verifies the evidence", async () => {
    const before = { buyer: usdc(buyer), payTo: usdc(payTo) };
    const submissions = algod.submissions();
    const { f, seen } = countingFetch();
    const spendLog = spendLogPath();
    const outcome = await buy(options({ fetch: f, spendLog }));
    expect(outcome.status).toBe(200);
    expect(outcome.paid).toEqual({ usd: 0.01, network: NETWORK, payTo: payTo.addr.toString() });
    expect(outcome.receipt).toMatchObject({ success: true, network: NETWORK, transaction: expect.stringMatching(/^[A-Z2-7]{52}$/) });
    expect(outcome.evidence).toMatchObject({ valid: true });
    expect((outcome.body as { text: string }).text).toContain("Evidence paid for in USDC on Algorand");
    expect(seen.signatures).toBe(1);
    expect(algod.submissions()).toBe(submissions + 1);
    expect(usdc(buyer)).toBe(before.buyer - PRICE);
    expect(usdc(payTo)).toBe(before.payTo + PRICE);
    const log = readFileSync(spendLog, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(log).toMatchObject([
      { event: "signed", usd: 0.01, network: NETWORK, asset: USDC_ASA, pay_to: payTo.addr.toString(), amount: "10000" },
      { event: "settled", transaction: outcome.receipt!.transaction, status: 200 },
    ]);
  });

  it("pays a tool over MCP the same way, with a base64 secret key in the key file", async () => {
    const before = usdc(buyer);
    const { f, seen } = countingFetch();
    const outcome = await buyMcp({ ...options({ fetch: f, keyFile: base64File }), url: `${base}/mcp`, tool: "web_read" });
    expect(outcome.isError).toBe(false);
    expect(outcome.paid).toEqual({ usd: 0.01, network: NETWORK, payTo: payTo.addr.toString() });
    expect(outcome.receipt).toMatchObject({ success: true, network: NETWORK, payer: buyer.addr.toString() });
    expect(outcome.evidence).toMatchObject({ valid: true });
    expect(seen.signatures).toBe(1);
    expect(usdc(buyer)).toBe(before - PRICE);
  });

  it("works as the command: --network algorand --algod-url, exit 0", async () => {
    const proc = Bun.spawn(
      [process.execPath, join(repoRoot, "src/main.ts"), "buy", `${base}/v1/web/read`, "--json", JSON.stringify({ url: site.url("/page") }), "--network", "algorand", "--algod-url", algod.url, "--key-file", mnemonicFile, "--spend-log", spendLogPath()],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ status: 200, paid: { network: NETWORK }, receipt: { success: true }, evidence: { valid: true }, result: { ok: true } });
  });
});

describe("tollbooth buy on Algorand refuses before any signature", () => {
  const refusedWithoutSignature = async (over: Partial<BuyOptions>, message: RegExp) => {
    const before = usdc(buyer);
    const submissions = algod.submissions();
    const { f, seen } = countingFetch();
    const spendLog = spendLogPath();
    const attempt = buy(options({ fetch: f, spendLog, ...over }));
    expect(attempt).rejects.toThrow(BuyerRefusal);
    await attempt.catch((error: Error) => expect(error.message).toMatch(message));
    expect(seen.signatures).toBe(0);
    expect(existsSync(spendLog)).toBe(false);
    expect(usdc(buyer)).toBe(before);
    expect(algod.submissions()).toBe(submissions);
    return seen;
  };

  it("a price above --max-usd", async () => {
    await refusedWithoutSignature({ maxUsd: 0.009 }, /price is \$0\.01 and --max-usd is \$0\.009/);
  });

  it("a key file that others may read, or that holds no Algorand key (an EVM key), before any request", async () => {
    const open = join(tmp, "open.mnemonic");
    writeFileSync(open, algosdk.secretKeyToMnemonic(buyer.sk));
    chmodSync(open, 0o644);
    expect((await refusedWithoutSignature({ keyFile: open }, /may be read by group or others/)).requests).toBe(0);
    const evm = join(tmp, "evm.key");
    writeFileSync(evm, `0x${"11".repeat(32)}\n`, { mode: 0o600 });
    expect((await refusedWithoutSignature({ keyFile: evm }, /does not hold the paying Algorand account's 25-word mnemonic/)).requests).toBe(0);
  });

  it("a base64 secret key whose public half is not its seed's is no key", () => {
    const forged = new Uint8Array(buyer.sk);
    forged.set(algosdk.generateAccount().addr.publicKey, 32);
    const file = join(tmp, "forged.b64");
    writeFileSync(file, Buffer.from(forged).toString("base64"), { mode: 0o600 });
    expect(() => readBuyerKey(file, "avm")).toThrow(/does not hold/);
    expect(readBuyerKey(base64File, "avm")).toMatchObject({ family: "avm", address: buyer.addr.toString() });
  });

  describe("a seller whose Algorand offer is wrong", () => {
    const offer = () => ({ scheme: "exact", network: NETWORK, amount: "10000", asset: USDC_ASA, payTo: payTo.addr.toString(), maxTimeoutSeconds: 300, extra: { feePayer: feePayer.addr.toString() } });
    function seller(accept: Record<string, unknown>) {
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () => {
          const required = { x402Version: 2, resource: { url: "http://127.0.0.1/x", description: "x", mimeType: "application/json" }, accepts: [accept] } as never;
          return new Response(JSON.stringify({ ok: false, error: "PAYMENT_REQUIRED" }), { status: 402, headers: { "content-type": "application/json", "PAYMENT-REQUIRED": encodePaymentRequired(required) } });
        },
      });
      return { url: `http://127.0.0.1:${server.port}/x`, stop: () => server.stop(true) };
    }

    it("another asset than USDC, a payTo that is no Algorand address, and the buyer's own account as fee payer", async () => {
      for (const [edit, message] of [
        [{ asset: "12345" }, /asks for asset 12345 .* not 31566704/],
        [{ payTo: "0x000000000000000000000000000000000000dEaD" }, /payTo .* is not an Algorand address/],
        [{ extra: { feePayer: buyer.addr.toString() } }, /buyer's own account as fee payer/],
      ] as const) {
        const s = seller({ ...offer(), ...edit });
        await refusedWithoutSignature({ url: s.url }, message);
        s.stop();
      }
    });
  });
});
