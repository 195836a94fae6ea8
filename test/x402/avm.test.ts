/**
 * Algorand `exact`: the official @x402/avm buyer pays a loopback server guarded by our gate, which
 * verifies the group with algosdk, signs its fee-payer transaction and submits through algod.
 *
 * NOT a real Algorand node: algod here is test/support/algod.ts, a loopback stand-in for the REST
 * subset used, which checks signatures, group ids, validity rounds, fees, opt-ins and balances.
 * Mainnet settlement has not been tried against a real node.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import algosdk from "algosdk";
import { ExactAvmScheme, toClientAvmSigner } from "@x402/avm";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { openDatabase } from "../../src/store/db.ts";
import { receiptMigrations } from "../../src/store/receipts.ts";
import type { X402Config } from "../../src/x402/config.ts";
import { createPaymentGate, type PaidOperation, type PaymentGate } from "../../src/x402/gate.ts";
import { decodePaymentRequired, decodePaymentResponse, encodeBase64Json } from "../../src/x402/headers.ts";
import { ALGORAND_MAINNET_GENESIS_HASH } from "../../src/x402/networks.ts";
import type { PaymentPayload, PaymentRequired } from "../../src/x402/messages.ts";
import { catchPayment } from "../support/payment-capture.ts";
import { ALGO, algorandX402, type FakeAlgod, newAlgodAccount, startFakeAlgod, USDC_ASA } from "../support/algod.ts";
import { startPaidServer, type PaidServer } from "./paid-server.ts";

const NETWORK = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k";

let algod: FakeAlgod;
let buyer: algosdk.Account;
let payTo: algosdk.Account;
let feePayer: algosdk.Account;
const cleanups: (() => Promise<void>)[] = [];
let work: (body: Record<string, unknown>) => Promise<unknown> = async (body) => ({ echoed: body.text });

const operation = (_body: Record<string, unknown>, url: URL): PaidOperation => ({
  resource: { url: `http://127.0.0.1${url.pathname}`, description: "Echo", mimeType: "application/json" },
  priceUsd: { base: "0.005", algorand: "0.01" },
});

const config = (settings: Partial<X402Config> = {}): X402Config => algorandX402(algod, { payTo, feePayer }, { settings });

const newAccount = (opts: { algo?: bigint; usdc?: bigint; optIn?: boolean } = {}): algosdk.Account => newAlgodAccount(algod, { ...opts, algo: opts.algo ?? 0n });

function serve(gate: PaymentGate): PaidServer {
  const server = startPaidServer({ gate, operation, work: (body) => work(body) });
  cleanups.push(() => server.stop());
  return server;
}

function officialFetch(account: algosdk.Account, baseFetch: typeof fetch = fetch): typeof fetch {
  const client = new x402Client();
  client.register(NETWORK, new ExactAvmScheme(toClientAvmSigner(Buffer.from(account.sk).toString("base64")), { algodUrl: algod.url }) as never);
  // USDC is a default asset (allowed, $1 cap); ASA 12345 is listed for the wrong-asset test only.
  client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: "12345" }] });
  return wrapFetchWithPayment(baseFetch, client) as typeof fetch;
}

async function capturePayment(server: PaidServer, account: algosdk.Account, editRequired?: (r: PaymentRequired) => void): Promise<string> {
  const catcher = catchPayment(editRequired);
  await officialFetch(account, catcher.fetch)(`${server.url}/v1/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "hi" }) });
  return catcher.captured();
}

const post = (f: typeof fetch, server: PaidServer, headers: Record<string, string> = {}) =>
  f(`${server.url}/v1/echo`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ text: "hi" }) });
const decodeSignature = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8")) as PaymentPayload;
const usdc = (account: algosdk.Account) => algod.assetBalance(account.addr.toString(), USDC_ASA);
async function reasonOf(response: Response): Promise<string | undefined> {
  const decoded = decodePaymentRequired(response.headers.get("payment-required") ?? "");
  if (!decoded.ok) throw new Error(`no PAYMENT-REQUIRED (${response.status}): ${decoded.reason}`);
  return decoded.value.error;
}

let gate: PaymentGate;
let server: PaidServer;

beforeAll(() => {
  algod = startFakeAlgod();
  buyer = newAccount({ algo: ALGO, usdc: 10n * ALGO });
  payTo = newAccount({ algo: ALGO });
  feePayer = newAccount({ algo: 10n * ALGO, optIn: false });
  gate = createPaymentGate({ config: config(), db: openDatabase({ path: ":memory:", migrations: receiptMigrations }), pollingIntervalMs: 10 });
  server = serve(gate);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await algod?.stop();
});

describe("Algorand challenge and payment", () => {
  test("402 offers USDC ASA 31566704 on the 32-character network id with our fee payer", async () => {
    const response = await post(fetch, server);
    expect(response.status).toBe(402);
    const decoded = decodePaymentRequired(response.headers.get("payment-required") ?? "");
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.value.accepts).toEqual([
      { scheme: "exact", network: NETWORK, amount: "10000", asset: USDC_ASA, payTo: payTo.addr.toString(), maxTimeoutSeconds: 300, extra: { feePayer: feePayer.addr.toString() } },
    ]);
  });

  test("the official @x402/avm buyer pays: USDC moves once, our fee payer pays the fees, the receipt names the payment txid", async () => {
    const buyerBefore = usdc(buyer) ?? 0n;
    const payToBefore = usdc(payTo) ?? 0n;
    const feeBefore = algod.algoBalance(feePayer.addr.toString());
    const response = await post(officialFetch(buyer), server);
    expect(response.status).toBe(200);
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    if (!settlement.ok) throw new Error(settlement.reason);
    expect(settlement.value).toMatchObject({ success: true, network: NETWORK, payer: buyer.addr.toString(), amount: "10000" });
    expect(settlement.value.transaction).toMatch(/^[A-Z2-7]{52}$/);
    expect(usdc(buyer)).toBe(buyerBefore - 10_000n);
    expect(usdc(payTo)).toBe(payToBefore + 10_000n);
    expect(algod.algoBalance(feePayer.addr.toString())).toBeLessThan(feeBefore);
    expect(algod.algoBalance(buyer.addr.toString())).toBe(ALGO);
    expect(await gate.lookup(settlement.value.transaction)).toMatchObject({ state: "settled", transaction: settlement.value.transaction });
  });

  test("a replayed group is refused without being submitted again; the same group 4× at once settles once", async () => {
    const header = await capturePayment(server, buyer);
    const before = usdc(buyer) ?? 0n;
    const results = await Promise.all(Array.from({ length: 4 }, () => post(fetch, server, { "PAYMENT-SIGNATURE": header })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(usdc(buyer)).toBe(before - 10_000n);
    const submissions = algod.submissions();
    const replay = await post(fetch, server, { "PAYMENT-SIGNATURE": header });
    expect(replay.status).toBe(402);
    expect(await reasonOf(replay)).toBe("invalid_transaction_state");
    expect(algod.submissions()).toBe(submissions);
    expect(usdc(buyer)).toBe(before - 10_000n);
  });

  test("the spec's full-genesis-hash network id is accepted as the same network", async () => {
    const payload = decodeSignature(await capturePayment(server, buyer));
    payload.accepted.network = `algorand:${ALGORAND_MAINNET_GENESIS_HASH}`;
    const response = await post(fetch, server, { "PAYMENT-SIGNATURE": encodeBase64Json(payload) });
    expect(response.status).toBe(200);
  });
});

describe("refused Algorand payments (nothing submitted)", () => {
  async function expectRefused(header: string, reason: string) {
    const submissions = algod.submissions();
    const before = usdc(buyer);
    const response = await post(fetch, server, { "PAYMENT-SIGNATURE": header });
    expect(response.status).toBe(402);
    expect(await reasonOf(response)).toBe(reason);
    expect(algod.submissions()).toBe(submissions);
    expect(usdc(buyer)).toBe(before);
  }
  const restore = (header: string) => {
    const payload = decodeSignature(header);
    payload.accepted = { scheme: "exact", network: NETWORK, amount: "10000", asset: USDC_ASA, payTo: payTo.addr.toString(), maxTimeoutSeconds: 300, extra: { feePayer: feePayer.addr.toString() } };
    return payload;
  };

  test("amount signed lower than the price (accepted restored)", async () => {
    await expectRefused(encodeBase64Json(restore(await capturePayment(server, buyer, (r) => void (r.accepts[0]!.amount = "1")))), "invalid_exact_avm_amount_mismatch");
  });

  test("another receiver (accepted restored)", async () => {
    const other = newAccount();
    await expectRefused(encodeBase64Json(restore(await capturePayment(server, buyer, (r) => void (r.accepts[0]!.payTo = other.addr.toString())))), "invalid_exact_avm_receiver_mismatch");
  });

  test("another asset (accepted restored)", async () => {
    algod.optIn(buyer.addr.toString(), "12345");
    algod.optIn(payTo.addr.toString(), "12345");
    await expectRefused(encodeBase64Json(restore(await capturePayment(server, buyer, (r) => void (r.accepts[0]!.asset = "12345")))), "invalid_exact_avm_asset_mismatch");
  });

  test("signature stripped from the payment transaction", async () => {
    const payload = decodeSignature(await capturePayment(server, buyer));
    const group = (payload.payload as { paymentGroup: string[]; paymentIndex: number });
    const signed = algosdk.decodeSignedTransaction(Buffer.from(group.paymentGroup[group.paymentIndex]!, "base64"));
    group.paymentGroup[group.paymentIndex] = Buffer.from(algosdk.encodeUnsignedTransaction(signed.txn)).toString("base64");
    await expectRefused(encodeBase64Json(payload), "invalid_exact_avm_payment_not_signed");
  });

  test("signature by another key", async () => {
    const payload = decodeSignature(await capturePayment(server, buyer));
    const group = (payload.payload as { paymentGroup: string[]; paymentIndex: number });
    const signed = algosdk.decodeSignedTransaction(Buffer.from(group.paymentGroup[group.paymentIndex]!, "base64"));
    const mallory = algosdk.generateAccount();
    const forged = algosdk.encodeMsgpack(new algosdk.SignedTransaction({ txn: signed.txn, sig: algosdk.decodeSignedTransaction(signed.txn.signTxn(mallory.sk)).sig! }));
    group.paymentGroup[group.paymentIndex] = Buffer.from(forged).toString("base64");
    await expectRefused(encodeBase64Json(payload), "invalid_exact_avm_invalid_signature");
  });

  test("validity rounds over (buyer signed 10 rounds; the chain moved on)", async () => {
    const header = await capturePayment(server, buyer);
    algod.advanceRounds(20);
    await expectRefused(header, "invalid_exact_avm_invalid_transaction");
  });

  test("payer without enough USDC", async () => {
    const poor = newAccount({ algo: ALGO, usdc: 5n });
    const submissions = algod.submissions();
    const response = await post(officialFetch(poor), server);
    expect(response.status).toBe(402);
    expect(await reasonOf(response)).toBe("insufficient_funds");
    expect(algod.submissions()).toBe(submissions);
  });

  describe("groups built with algosdk around a genuine signed transfer", () => {
    async function buildGroup(feeTxn: (sp: algosdk.SuggestedParams) => algosdk.Transaction, options: { signFee?: boolean } = {}) {
      const raw = (await (await fetch(`${algod.url}/v2/transactions/params`)).json()) as { "last-round": number; "genesis-hash": string; "genesis-id": string };
      const sp: algosdk.SuggestedParams = {
        fee: 0, minFee: 1000, flatFee: true, firstValid: raw["last-round"], lastValid: raw["last-round"] + 10,
        genesisHash: new Uint8Array(Buffer.from(raw["genesis-hash"], "base64")), genesisID: raw["genesis-id"],
      };
      const fee = feeTxn(sp);
      const transfer = algosdk.makeAssetTransferTxnWithSuggestedParamsFromObject({
        sender: buyer.addr, receiver: payTo.addr, amount: 10_000n, assetIndex: BigInt(USDC_ASA), suggestedParams: { ...sp, fee: 0 },
      });
      algosdk.assignGroupID([fee, transfer]);
      const paymentGroup = [
        Buffer.from(options.signFee ? fee.signTxn(buyer.sk) : algosdk.encodeUnsignedTransaction(fee)).toString("base64"),
        Buffer.from(transfer.signTxn(buyer.sk)).toString("base64"),
      ];
      const accepted = { scheme: "exact", network: NETWORK, amount: "10000", asset: USDC_ASA, payTo: payTo.addr.toString(), maxTimeoutSeconds: 300, extra: { feePayer: feePayer.addr.toString() } };
      return encodeBase64Json({ x402Version: 2, accepted, payload: { paymentGroup, paymentIndex: 1 } });
    }
    const feePayTxn = (sp: algosdk.SuggestedParams, fields: Partial<{ amount: bigint; receiver: string; rekeyTo: string; fee: number }> = {}) =>
      algosdk.makePaymentTxnWithSuggestedParamsFromObject({
        sender: feePayer.addr, receiver: fields.receiver ?? feePayer.addr, amount: fields.amount ?? 0n,
        ...(fields.rekeyTo ? { rekeyTo: fields.rekeyTo } : {}), suggestedParams: { ...sp, fee: fields.fee ?? 2000 },
      });

    test("a well-formed algosdk group is accepted and settles", async () => {
      const before = usdc(payTo) ?? 0n;
      const response = await post(fetch, server, { "PAYMENT-SIGNATURE": await buildGroup((sp) => feePayTxn(sp)) });
      expect(response.status).toBe(200);
      expect(usdc(payTo)).toBe(before + 10_000n);
    });

    test("fee-payer transaction paying the buyer 1 ALGO", async () => {
      await expectRefused(await buildGroup((sp) => feePayTxn(sp, { amount: ALGO, receiver: buyer.addr.toString() })), "invalid_exact_avm_invalid_fee_payer");
    });

    test("fee-payer transaction with a rekey", async () => {
      await expectRefused(await buildGroup((sp) => feePayTxn(sp, { rekeyTo: buyer.addr.toString() })), "invalid_exact_avm_invalid_fee_payer");
    });

    test("fee-payer transaction with a 1 ALGO fee", async () => {
      await expectRefused(await buildGroup((sp) => feePayTxn(sp, { fee: 1_000_000 })), "invalid_exact_avm_fee_too_high");
    });

    test("an extra unsigned transaction from someone else", async () => {
      const other = newAccount({ algo: ALGO });
      await expectRefused(
        await buildGroup((sp) => algosdk.makePaymentTxnWithSuggestedParamsFromObject({ sender: other.addr, receiver: other.addr, amount: 0n, suggestedParams: { ...sp, fee: 2000 } })),
        "invalid_exact_avm_unsigned_non_facilitator",
      );
    });

    test("group id not over these transactions", async () => {
      const payload = decodeSignature(await buildGroup((sp) => feePayTxn(sp)));
      const group = payload.payload as { paymentGroup: string[] };
      const fee = algosdk.decodeUnsignedTransaction(Buffer.from(group.paymentGroup[0]!, "base64"));
      fee.group = new Uint8Array(32).fill(7);
      group.paymentGroup[0] = Buffer.from(algosdk.encodeUnsignedTransaction(fee)).toString("base64");
      await expectRefused(encodeBase64Json(payload), "invalid_exact_avm_invalid_group_id");
    });
  });
});

describe("Algorand settlement outcomes", () => {
  test("payer drains its USDC during the work → 402 PAYMENT-RESPONSE success:false, result withheld", async () => {
    const drained = newAccount({ algo: ALGO, usdc: 20_000n });
    const header = await capturePayment(server, drained);
    work = async (body) => {
      algod.mintAsset(drained.addr.toString(), USDC_ASA, -20_000n);
      return { echoed: `${String(body.text)} secret` };
    };
    let response: Response;
    try {
      response = await post(fetch, server, { "PAYMENT-SIGNATURE": header });
    } finally {
      work = async (body) => ({ echoed: body.text });
    }
    expect(response.status).toBe(402);
    expect(await response.text()).not.toContain("secret");
    const settlement = decodePaymentResponse(response.headers.get("payment-response") ?? "");
    expect(settlement.ok && settlement.value).toMatchObject({ success: false, network: NETWORK });
  });

  test("group accepted but not confirmed in time → 504 SETTLEMENT_PENDING; reconcile settles it once confirmed", async () => {
    const slow = createPaymentGate({ config: config({ confirmationTimeoutMs: 100 }), db: openDatabase({ path: ":memory:", migrations: receiptMigrations }), pollingIntervalMs: 10 });
    const slowServer = serve(slow);
    const header = await capturePayment(slowServer, buyer);
    const before = usdc(buyer) ?? 0n;
    algod.holdConfirmations(true);
    try {
      const response = await post(fetch, slowServer, { "PAYMENT-SIGNATURE": header });
      expect(response.status).toBe(504);
      const body = (await response.json()) as { error: string; transaction: string };
      expect(body.error).toBe("SETTLEMENT_PENDING");
      expect((await slow.lookup(body.transaction))?.state).toBe("pending");
      expect(await slow.reconcile()).toMatchObject({ settled: 0, stillPending: 1 });
      algod.confirmHeld();
      expect(await slow.reconcile()).toMatchObject({ settled: 1, stillPending: 0 });
      expect((await slow.lookup(body.transaction))?.state).toBe("settled");
    } finally {
      algod.holdConfirmations(false);
    }
    expect(usdc(buyer)).toBe(before - 10_000n);
  });

  test("algod answers 503 after taking the group → 504 SETTLEMENT_PENDING (never 402); reconcile finds it confirmed", async () => {
    const header = await capturePayment(server, buyer);
    algod.failSubmitAfterAccepting(true);
    let body: { error: string; transaction: string };
    try {
      const response = await post(fetch, server, { "PAYMENT-SIGNATURE": header });
      expect(response.status).toBe(504);
      body = (await response.json()) as typeof body;
    } finally {
      algod.failSubmitAfterAccepting(false);
    }
    expect(await gate.reconcile()).toMatchObject({ settled: 1 });
    expect((await gate.lookup(body.transaction))?.state).toBe("settled");
  });
});
