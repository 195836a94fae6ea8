/**
 * Automatic refunds on Algorand, through the algod stand-in (test/support/algod.ts: checks
 * signatures, validity rounds, opt-ins and balances; not a real node) with the official
 * @x402/avm buyer: a job settled at acceptance that fails through our fault gets its USDC back
 * exactly once, also with two passes at once; a recorded refund left unsent past its last valid
 * round is proven dead and replaced once; too late for algod to tell, it is held for the
 * operator; without a refund mnemonic nothing is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import algosdk from "algosdk";
import { ExactAvmScheme, toClientAvmSigner } from "@x402/avm";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createMemoryLogger } from "../../src/log.ts";
import { createRefundPayer, type RefundPayer } from "../../src/refunds/payer.ts";
import { resolveNetworks, type X402Config } from "../../src/x402/config.ts";
import { loadRefundSenders } from "../../src/x402/refund-senders.ts";
import type { RefundSender } from "../../src/x402/refund.ts";
import { ALGO, algorandX402, type FakeAlgod, newAlgodAccount, startFakeAlgod, USDC_ASA } from "../support/algod.ts";
import { type TestService, testService } from "../support/service.ts";
import { crashSkill, jobSkillFolder, until } from "./job-skills.ts";

const NETWORK = "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k";
const PRICE = 2000n;


let algod: FakeAlgod;
let buyer: algosdk.Account;
let payTo: algosdk.Account;
let feePayer: algosdk.Account;
let manual: TestService;
let auto: TestService;

const account = (opts: { algo?: bigint; usdc?: bigint } = {}): algosdk.Account => newAlgodAccount(algod, { ...opts, algo: opts.algo ?? ALGO });

const config = (refund: boolean): X402Config => algorandX402(algod, { payTo, feePayer }, refund ? { entry: { refundMnemonic: algosdk.secretKeyToMnemonic(payTo.sk) } } : {});

beforeAll(async () => {
  algod = startFakeAlgod();
  buyer = account({ algo: 10n * ALGO, usdc: 1_000_000n });
  payTo = account({ algo: 10n * ALGO });
  feePayer = account({ algo: 10n * ALGO });
  const folder = jobSkillFolder({ "test-crash.ts": crashSkill });
  manual = await testService(["--plugins", folder, "--payments", "on", "--x402", JSON.stringify(config(false))], { pollingIntervalMs: 20 });
  auto = await testService(["--plugins", folder, "--payments", "on", "--x402", JSON.stringify(config(true))], { pollingIntervalMs: 20 });
}, 60_000);

afterAll(async () => {
  manual?.close();
  auto?.close();
  await algod?.stop();
});

const usdc = (a: algosdk.Account) => algod.assetBalance(a.addr.toString(), USDC_ASA) ?? 0n;

async function failedJob(target: TestService, tag: string): Promise<string> {
  const client = new x402Client();
  client.register(NETWORK, new ExactAvmScheme(toClientAvmSigner(Buffer.from(buyer.sk).toString("base64")), { algodUrl: algod.url }) as never);
  const pay = wrapFetchWithPayment(((input: RequestInfo | URL, init?: RequestInit) => target.handle(new Request(input, init), "127.0.0.1")) as typeof fetch, client);
  const res = await pay("http://127.0.0.1:8402/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ skill: "test.crash", tag }) });
  expect(res.status).toBe(202);
  const accepted = (await res.json()) as Record<string, unknown>;
  expect(accepted.settlement).toMatchObject({ settlement: "at_acceptance", settled: true });
  const id = String(accepted.job_id);
  await until(async () => {
    const body = (await (await target.request(`/v1/jobs/${id}`)).json()) as Record<string, unknown>;
    return body.status === "failed" ? body : undefined;
  }, 10_000, "job to fail");
  return id;
}

async function payerFor(target: TestService): Promise<{ payer: RefundPayer; sender: RefundSender }> {
  const senders = await loadRefundSenders(resolveNetworks(config(true)), { pollingIntervalMs: 20 });
  return { payer: createRefundPayer({ ledger: target.store.jobs, senders, log: createMemoryLogger(), confirmationTimeoutMs: 2_000 }), sender: senders.get(NETWORK)! };
}

describe("automatic refunds on Algorand (algod stand-in, official buyer)", () => {
  let dueId = "";

  it("without a refund mnemonic sends nothing and keeps the refund due", async () => {
    const before = usdc(buyer);
    const submissions = algod.submissions();
    dueId = await failedJob(manual, "manual");
    expect(usdc(buyer)).toBe(before - PRICE);
    expect(algod.submissions()).toBe(submissions + 1); // the settlement only
    expect((await manual.store.jobs.listRefunds("unpaid")).map((r) => r.id)).toContain(dueId);
    expect(await manual.store.jobs.get(dueId)).toMatchObject({ refundState: "due", refundTx: null });
  }, 30_000);

  it("two passes at once pay it back exactly once", async () => {
    const before = usdc(buyer);
    const payToBefore = usdc(payTo);
    await Promise.all([(await payerFor(manual)).payer.pass(), (await payerFor(manual)).payer.pass()]);
    expect(usdc(buyer)).toBe(before + PRICE);
    expect(usdc(payTo)).toBe(payToBefore - PRICE);
    const row = await manual.store.jobs.get(dueId);
    expect(row?.refundState).toBe("paid");
    expect(row?.refundTx).toMatch(/^[A-Z2-7]{52}$/);
    await (await payerFor(manual)).payer.pass();
    expect(usdc(buyer)).toBe(before + PRICE);
  }, 30_000);

  it("with a refund mnemonic pays it right after the job fails", async () => {
    const before = usdc(buyer);
    const id = await failedJob(auto, "auto");
    const refund = await until(async () => {
      const body = (await (await auto.request(`/v1/jobs/${id}`)).json()) as { payment: { refund?: Record<string, unknown> } };
      return body.payment.refund?.state === "paid" ? body.payment.refund : undefined;
    }, 15_000, "refund to be paid");
    expect(refund.transaction).toMatch(/^[A-Z2-7]{52}$/);
    expect(usdc(buyer)).toBe(before);
  }, 30_000);

  it("a recorded refund never sent is re-sent as the same transaction within its window", async () => {
    const id = await failedJob(manual, "crash");
    const before = usdc(buyer);
    const { sender } = (await payerFor(manual));
    expect(await manual.store.jobs.claimRefund(id, "dead-process", new Date())).toBe(true);
    const signed = await sender.sign({ reference: id, payer: buyer.addr.toString(), amount: PRICE });
    expect(await manual.store.jobs.recordRefundTx(id, "dead-process", signed)).toBe(true);
    await Promise.all([(await payerFor(manual)).payer.pass(), (await payerFor(manual)).payer.pass()]);
    expect(await manual.store.jobs.get(id)).toMatchObject({ refundState: "paid", refundTx: signed.transaction });
    expect(usdc(buyer)).toBe(before + PRICE);
  }, 30_000);

  it("past its last valid round an unsent refund is proven dead and replaced once; far past, it is held for the operator", async () => {
    const id = await failedJob(manual, "late");
    const before = usdc(buyer);
    const { sender } = (await payerFor(manual));
    expect(await manual.store.jobs.claimRefund(id, "dead-process", new Date())).toBe(true);
    const stale = await sender.sign({ reference: id, payer: buyer.addr.toString(), amount: PRICE });
    expect(await manual.store.jobs.recordRefundTx(id, "dead-process", stale)).toBe(true);
    algod.advanceRounds(300);
    const payer = (await payerFor(manual)).payer;
    expect((await payer.pass()).failed).toBe(1);
    expect(await manual.store.jobs.get(id)).toMatchObject({ refundState: "due", refundTx: null });
    expect((await payer.pass()).paid).toBe(1);
    expect((await manual.store.jobs.get(id))?.refundTx).not.toBe(stale.transaction);
    expect(usdc(buyer)).toBe(before + PRICE);
    // The stale one can no longer land.
    expect((await sender.broadcast(stale)).kind).toBe("error");
    expect(usdc(buyer)).toBe(before + PRICE);

    const id2 = await failedJob(manual, "too-late");
    const before2 = usdc(buyer);
    expect(await manual.store.jobs.claimRefund(id2, "dead-process", new Date())).toBe(true);
    const lost = await sender.sign({ reference: id2, payer: buyer.addr.toString(), amount: PRICE });
    expect(await manual.store.jobs.recordRefundTx(id2, "dead-process", lost)).toBe(true);
    algod.advanceRounds(2_000);
    expect((await payer.pass()).held).toBe(1);
    expect(await manual.store.jobs.get(id2)).toMatchObject({ refundState: "sending", refundTx: lost.transaction });
    expect((await manual.store.jobs.get(id2))?.refundError).toContain("check");
    expect(usdc(buyer)).toBe(before2);
  }, 30_000);
});
