/**
 * A lost response never forces a second payment: the official buyer (@x402/fetch + @x402/evm,
 * with the official payment-identifier helper) pays web/read through the whole service on anvil,
 * the paid response is lost on the way back, and the buyer's retry under the same identifier gets
 * the same result and PAYMENT-RESPONSE; the page was read once and the chain shows one transfer.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { parseAbiItem } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningService } from "../../src/boot.ts";
import { decodePaymentRequired, decodePaymentResponse } from "../../src/x402/headers.ts";
import { PAYMENT_IDENTIFIER } from "../../src/x402/payment-identifier.ts";
import { type EvmFixture, NETWORK, startEvmFixture } from "../x402/evm-fixture.ts";
import { startPaidService } from "../support/paid-service.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { scanSqlite } from "./sqlite-scan.ts";

const PAGE_PROBE = "Lighthouse keepers count 4127 gulls";
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

let fx: EvmFixture;
let site: SiteServer;
let service: RunningService;
let base: string;
let dataDir: string;

beforeAll(async () => {
  fx = await startEvmFixture();
  site = startSiteServer();
  site.set("/page", `<html><head><title>Probe</title></head><body><main><h1>Probe page</h1><p>${PAGE_PROBE} every morning.</p></main></body></html>`);
  site.set("/other", "<html><head><title>Other</title></head><body><main><h1>Other</h1><p>Another page entirely, not the same call.</p></main></body></html>");
  dataDir = mkdtempSync(join(tmpdir(), "tollbooth-payid-flow-"));
  ({ service, base } = await startPaidService(fx, dataDir));
}, 60_000);

afterAll(async () => {
  await service?.close();
  await site?.stop();
  await fx?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The official buyer, sending `id` as its payment identifier. With `loseResponse`, the paid
 * response is read off the wire and then dropped, as a reset connection would.
 */
function buyer(id: string, options: { loseResponse?: boolean } = {}): typeof fetch {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(fx.buyer.key), networks: [NETWORK] });
  client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
  client.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions ?? {}, id));
  const transport = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const paid = request.headers.has("PAYMENT-SIGNATURE");
    const response = await fetch(request);
    if (paid && options.loseResponse) {
      await response.arrayBuffer();
      throw new TypeError("connection reset by peer");
    }
    return response;
  };
  return wrapFetchWithPayment(transport as typeof fetch, client) as typeof fetch;
}

const read = (f: typeof fetch, url: string) =>
  f(`${base}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url }) });
const transfersFromBuyer = async () =>
  (await fx.anvil.publicClient.getLogs({ address: fx.token.address, event: transferEvent, args: { from: fx.buyer.address }, fromBlock: 0n })).length;

describe("payment-identifier through the whole service", () => {
  it("declares payment-identifier in the 402 of a paid endpoint", async () => {
    const res = await read(fetch, site.url("/page"));
    expect(res.status).toBe(402);
    const required = decodePaymentRequired(res.headers.get("payment-required") ?? "");
    if (!required.ok) throw new Error(required.reason);
    expect(required.value.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } });
  });

  it("answers the retry of a lost paid response from memory: same result, same PAYMENT-RESPONSE, one transfer, work run once", async () => {
    const id = "pay_flow_lost_response_01";
    const transfersBefore = await transfersFromBuyer();
    const balanceBefore = await fx.token.balanceOf(fx.buyer.address);

    await expect(read(buyer(id, { loseResponse: true }), site.url("/page"))).rejects.toThrow("connection reset");
    expect(site.hits("/page")).toBe(1);
    expect(await transfersFromBuyer()).toBe(transfersBefore + 1);

    const retry = await read(buyer(id), site.url("/page"));
    expect(retry.status).toBe(200);
    const body = (await retry.json()) as { text: string; request_id: string };
    expect(body.text).toContain(PAGE_PROBE);
    const settlement = decodePaymentResponse(retry.headers.get("payment-response") ?? "");
    if (!settlement.ok) throw new Error(settlement.reason);
    expect(settlement.value).toMatchObject({ success: true, network: NETWORK, amount: "5000" });
    const lookup = (await (await fetch(`${base}/v1/payments/${settlement.value.transaction}`)).json()) as { payment: { state: string } };
    expect(lookup.payment.state).toBe("settled");

    const again = await read(buyer(id), site.url("/page"));
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-response")).toBe(retry.headers.get("payment-response"));

    expect(site.hits("/page")).toBe(1);
    expect(await transfersFromBuyer()).toBe(transfersBefore + 1);
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(balanceBefore - 5000n);
  });

  it("refuses the same identifier for a different body with 409 PAYMENT_ID_CONFLICT, charging nothing", async () => {
    const id = "pay_flow_conflict_000001";
    expect((await read(buyer(id), site.url("/page"))).status).toBe(200);
    const balanceBefore = await fx.token.balanceOf(fx.buyer.address);
    const res = await read(buyer(id), site.url("/other"));
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toBe("PAYMENT_ID_CONFLICT");
    expect(site.hits("/other")).toBe(0);
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(balanceBefore);
  });

  it("writes nothing about held results to SQLite: no identifier, no page text", async () => {
    const { db, path } = service.store;
    const transactions = (db.query("SELECT transaction_id AS tx FROM payment_receipts WHERE state = 'settled'").all() as { tx: string }[]).map((r) => r.tx);
    expect(transactions.length).toBeGreaterThanOrEqual(2);
    expect(transactions[0]).toMatch(/^0x[0-9a-f]{64}$/);
    const secrets = ["pay_flow_lost_response_01", "pay_flow_conflict_000001", PAGE_PROBE];
    const scan = scanSqlite(db, path, [transactions[0]!, ...secrets]);
    expect(Object.values(scan.inRows).flat()).toContain(transactions[0]!); // the scan sees receipts
    expect(scan.inFiles).toContain(transactions[0]!);
    expect(Object.values(scan.inRows).flat().filter((s) => secrets.includes(s))).toEqual([]);
    expect(scan.inFiles.filter((s) => secrets.includes(s))).toEqual([]);
  });
});
