/**
 * Automatic refunds on anvil with the official @x402/fetch buyer: a job settled at acceptance that
 * fails through our fault gets its USDC back from the refund account exactly once (balances and
 * Transfer events read from the chain) — paid right after the failure when a refund key is set,
 * by concurrent passes of two independent payers, after a crash between recording and sending,
 * and after its transaction was made impossible; without a key nothing is sent and it is listed.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAbi } from "viem";
import { createMemoryLogger } from "../../src/log.ts";
import { createRefundPayer, type RefundPayer } from "../../src/refunds/payer.ts";
import { resolveNetworks } from "../../src/x402/config.ts";
import { loadRefundSenders } from "../../src/x402/refund-senders.ts";
import type { RefundSender } from "../../src/x402/refund.ts";
import { type TestService, testService } from "../support/service.ts";
import { type EvmFixture, NETWORK, startEvmFixture } from "../x402/evm-fixture.ts";
import { crashSkill, jobSkillFolder, until } from "./job-skills.ts";


const PRICE = 2000n;
let fx: EvmFixture;
let refunder: { key: `0x${string}`; address: `0x${string}` };
let manual: TestService;
let auto: TestService;
let manualData: string;

type Json = Record<string, unknown>;
const root = join(import.meta.dir, "../..");
const transferEvent = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]);

beforeAll(async () => {
  fx = await startEvmFixture();
  refunder = await fx.anvil.fundedAccount();
  const folder = jobSkillFolder({ "test-crash.ts": crashSkill });
  // The official buyer signs validBefore = now + 60 s: a 100 s job is settled at acceptance. payTo is the refund account.
  const base = { maxTimeoutSeconds: 60 };
  manualData = mkdtempSync(join(tmpdir(), "tb-refunds-evm-"));
  manual = await testService(["--data", manualData, "--plugins", folder, "--payments", "on", "--x402", JSON.stringify(fx.config(base, { payTo: refunder.address }))], { pollingIntervalMs: 20 });
  auto = await testService(
    ["--plugins", folder, "--payments", "on", "--x402", JSON.stringify(fx.config(base, { payTo: refunder.address, refundPrivateKey: refunder.key }))],
    { pollingIntervalMs: 20 },
  );
}, 60_000);

afterAll(async () => {
  manual?.close();
  auto?.close();
  await fx?.stop();
});

const buyerBalance = () => fx.token.balanceOf(fx.buyer.address);
const refunderBalance = () => fx.token.balanceOf(refunder.address);
/** Refund transfers from the refund account to the buyer, as the chain logged them. */
async function refundTransfers(): Promise<bigint[]> {
  const logs = await fx.anvil.publicClient.getContractEvents({
    address: fx.token.address,
    abi: transferEvent,
    eventName: "Transfer",
    args: { from: refunder.address, to: fx.buyer.address },
    fromBlock: 0n,
  });
  return logs.map((l) => l.args.value ?? 0n);
}

async function failedJob(target: TestService, tag: string): Promise<string> {
  const pay = fx.officialFetch(fx.buyer.key, undefined, ((input: RequestInfo | URL, init?: RequestInit) => target.handle(new Request(input, init), "127.0.0.1")) as typeof fetch);
  const res = await pay("http://127.0.0.1:8402/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ skill: "test.crash", tag }) });
  expect(res.status).toBe(202);
  const accepted = (await res.json()) as Json;
  expect(accepted.settlement).toMatchObject({ settlement: "at_acceptance", settled: true });
  const id = String(accepted.job_id);
  await until(async () => {
    const body = (await (await target.request(`/v1/jobs/${id}`)).json()) as Json;
    return body.status === "failed" ? body : undefined;
  }, 10_000, "job to fail");
  return id;
}

/** An independent payer over the service's database, as a second process would have. */
async function payerFor(target: TestService): Promise<{ payer: RefundPayer; sender: RefundSender }> {
  const senders = await loadRefundSenders(resolveNetworks(fx.config({}, { payTo: refunder.address, refundPrivateKey: refunder.key })), { pollingIntervalMs: 20 });
  const payer = createRefundPayer({ ledger: target.store.jobs, senders, log: createMemoryLogger(), confirmationTimeoutMs: 10_000 });
  return { payer, sender: senders.get(NETWORK)! };
}

const cli = (data: string, ...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, "src/main.ts", "refunds", "--data", data, ...args], { cwd: root });
  return { code: run.exitCode, out: run.stdout.toString() };
};

describe("automatic refunds on EVM (anvil, official buyer)", () => {
  let dueId = "";

  it("without a refund key sends nothing and lists the refund due", async () => {
    const before = await buyerBalance();
    const transfersBefore = (await refundTransfers()).length;
    dueId = await failedJob(manual, "manual");
    expect(await buyerBalance()).toBe(before - PRICE);
    const row = await manual.store.jobs.get(dueId);
    expect(row).toMatchObject({ refundState: "due", refundTx: null });
    expect((await refundTransfers()).length).toBe(transfersBefore);
    const listed = cli(manualData);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(dueId);
    expect(listed.out).toContain("1 refund due");
  }, 30_000);

  it("two payers running their passes concurrently pay it back exactly once, and the listing shows the transaction", async () => {
    const before = await buyerBalance();
    const refunderBefore = await refunderBalance();
    const transfersBefore = (await refundTransfers()).length;
    const a = (await payerFor(manual)).payer;
    const b = (await payerFor(manual)).payer;
    const [passes, pays] = await Promise.all([Promise.all([a.pass(), b.pass(), a.pass()]), Promise.all([a.pay(dueId), b.pay(dueId)])]);
    expect(passes.reduce((n, o) => n + o.paid, 0) + pays.filter((o) => o.kind === "paid").length).toBe(1);
    expect(await buyerBalance()).toBe(before + PRICE);
    expect(await refunderBalance()).toBe(refunderBefore - PRICE);
    expect((await refundTransfers()).length).toBe(transfersBefore + 1);
    const row = await manual.store.jobs.get(dueId);
    expect(row?.refundState).toBe("paid");
    expect(row?.refundTx).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await fx.anvil.publicClient.getTransactionReceipt({ hash: row!.refundTx as `0x${string}` });
    expect(receipt.status).toBe("success");

    // Later passes find nothing to pay.
    expect(await a.pass()).toEqual({ paid: 0, pending: 0, failed: 0, held: 0 });
    expect(await buyerBalance()).toBe(before + PRICE);
    expect(cli(manualData).out).toContain("no refunds due");
    expect(cli(manualData, "--all").out).toContain(`tx ${row!.refundTx}`);
  }, 30_000);

  it("with a refund key pays the refund right after the job fails, and the job shows its transaction", async () => {
    const before = await buyerBalance();
    const transfersBefore = (await refundTransfers()).length;
    const id = await failedJob(auto, "auto");
    const refund = await until(async () => {
      const body = (await (await auto.request(`/v1/jobs/${id}`)).json()) as { payment: { refund?: Json } };
      return body.payment.refund?.state === "paid" ? body.payment.refund : undefined;
    }, 15_000, "refund to be paid");
    expect(refund.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await buyerBalance()).toBe(before);
    expect((await refundTransfers()).length).toBe(transfersBefore + 1);
    // The periodic pass, run again by another payer, sends nothing more.
    await (await payerFor(auto)).payer.pass();
    expect(await buyerBalance()).toBe(before);
    expect((await refundTransfers()).length).toBe(transfersBefore + 1);
  }, 30_000);

  it("a refund recorded but not sent (crash) is sent later as the same transaction, never a second one", async () => {
    const id = await failedJob(manual, "crash-before-send");
    const before = await buyerBalance();
    const transfersBefore = (await refundTransfers()).length;
    const { sender } = (await payerFor(manual));
    expect(await manual.store.jobs.claimRefund(id, "dead-process", new Date())).toBe(true);
    const signed = await sender.sign({ reference: id, payer: fx.buyer.address, amount: PRICE });
    expect(await manual.store.jobs.recordRefundTx(id, "dead-process", signed)).toBe(true);
    // The process "died" here. The next one's passes (two at once) broadcast exactly these bytes.
    const next = (await payerFor(manual)).payer;
    await Promise.all([next.pass(), (await payerFor(manual)).payer.pass()]);
    expect(await manual.store.jobs.get(id)).toMatchObject({ refundState: "paid", refundTx: signed.transaction });
    expect(await buyerBalance()).toBe(before + PRICE);
    expect((await refundTransfers()).length).toBe(transfersBefore + 1);
  }, 30_000);

  it("a recorded refund whose nonce another transaction took is proven dead, released, and paid once by a new one", async () => {
    const id = await failedJob(manual, "nonce-taken");
    const before = await buyerBalance();
    const transfersBefore = (await refundTransfers()).length;
    const { sender } = (await payerFor(manual));
    expect(await manual.store.jobs.claimRefund(id, "dead-process", new Date())).toBe(true);
    const stale = await sender.sign({ reference: id, payer: fx.buyer.address, amount: PRICE });
    expect(await manual.store.jobs.recordRefundTx(id, "dead-process", stale)).toBe(true);
    // Another transaction from the refund account takes that nonce first (sent outside our nonce manager).
    const elsewhere = await fx.anvil.fundedAccount();
    await fx.token.mint(refunder.address, 1n);
    await fx.token.transfer(refunder.key, elsewhere.address, 1n);

    const payer = (await payerFor(manual)).payer;
    const first = await payer.pass();
    expect(first.failed).toBe(1);
    expect(await manual.store.jobs.get(id)).toMatchObject({ refundState: "due", refundTx: null });
    expect((await manual.store.jobs.get(id))?.refundError).toContain("did not land");
    const second = await payer.pass();
    expect(second.paid).toBe(1);
    const row = await manual.store.jobs.get(id);
    expect(row?.refundState).toBe("paid");
    expect(row?.refundTx).not.toBe(stale.transaction);
    expect(await buyerBalance()).toBe(before + PRICE);
    expect((await refundTransfers()).length).toBe(transfersBefore + 1);
    // The stale bytes can never land now.
    const rebroadcast = await sender.broadcast(stale);
    expect(rebroadcast.kind).toBe("error");
    expect(await buyerBalance()).toBe(before + PRICE);
  }, 30_000);

  it("leaves a refund due when the refund account cannot cover it, sending nothing", async () => {
    const id = await failedJob(manual, "broke");
    const held = await refunderBalance();
    const sink = await fx.anvil.fundedAccount();
    await fx.token.transfer(refunder.key, sink.address, held);
    const transfersBefore = (await refundTransfers()).length;
    const outcome = await (await payerFor(manual)).payer.pay(id);
    expect(outcome.kind).toBe("failed");
    const row = await manual.store.jobs.get(id);
    expect(row).toMatchObject({ refundState: "due", refundTx: null });
    expect(row?.refundError).toContain("holds 0");
    expect((await refundTransfers()).length).toBe(transfersBefore);
    await fx.token.transfer(sink.key, refunder.address, held);
  }, 30_000);
});
