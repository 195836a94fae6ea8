/**
 * The capital board paid with x402 on anvil, with the official @x402/fetch buyer: two buyers
 * racing for the last seat (one seat sold, one buyer charged), a settlement that fails after the
 * seats were reserved (the seats come back, nothing moves), and a cancelled ticket whose paid
 * commitments get refunds due, paid back by the shared refund payer. Balances are read from
 * the chain. @see issue 18
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCapitalService } from "../../src/capital/service.ts";
import { createRefundPayer } from "../../src/refunds/payer.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { resolveNetworks, type ResolvedEvmNetwork } from "../../src/x402/config.ts";
import { createExactEvmMechanism } from "../../src/x402/evm/exact.ts";
import { createLocalFacilitator } from "../../src/x402/facilitators/local.ts";
import { decodePaymentResponse } from "../../src/x402/headers.ts";
import { loadRefundSenders } from "../../src/x402/refund-senders.ts";
import { startFacilitatorServer, type FacilitatorServer } from "../support/facilitator.ts";
import { type TestService, testService } from "../support/service.ts";
import { type EvmFixture, NETWORK, startEvmFixture, USDC } from "../x402/evm-fixture.ts";

type Json = Record<string, any>;
type Account = { key: `0x${string}`; address: `0x${string}` };
const root = join(import.meta.dir, "../..");

let fx: EvmFixture;
let rival: Account;
let refunder: Account;
let data: string;
let service: TestService;
let facilitator: FacilitatorServer;
let drained: Account;
let viaFacilitator: TestService;
let slow: TestService;
const sink = "0x000000000000000000000000000000000000dEaD" as const;

beforeAll(async () => {
  fx = await startEvmFixture();
  rival = await fx.anvil.fundedAccount();
  await fx.token.mint(rival.address, 10n * USDC);
  // Payments land on the refund account, which pays refunds back from them.
  refunder = await fx.anvil.fundedAccount();
  data = mkdtempSync(join(tmpdir(), "tb-capital-paid-"));
  service = await testService(["--data", data, "--payments", "on", "--x402", JSON.stringify(fx.config({}, { payTo: refunder.address }))], { pollingIntervalMs: 20 });

  // A facilitator over our EVM mechanism whose settle finds the buyer's funds gone (spent meanwhile).
  drained = await fx.anvil.fundedAccount();
  await fx.token.mint(drained.address, 1n * USDC);
  const network = resolveNetworks(fx.config())[0] as ResolvedEvmNetwork;
  const local = createLocalFacilitator([createExactEvmMechanism({ network, settlementMarginSeconds: 6, confirmationTimeoutMs: 10_000, pollingIntervalMs: 20 })]);
  facilitator = startFacilitatorServer({
    verify: (p, r) => local.verify(p, r),
    settle: async (p, r) => {
      const balance = await fx.token.balanceOf(drained.address);
      if (balance > 0n) await fx.token.transfer(drained.key, sink, balance);
      return local.settle(p, r);
    },
    supported: () => local.supported(),
  });
  viaFacilitator = await testService(
    ["--payments", "on", "--x402", JSON.stringify(fx.config({ facilitator: { url: facilitator.url } }, { settlement: "remote", rpcUrl: undefined, settlerPrivateKey: undefined }))],
    { pollingIntervalMs: 20 },
  );
  // Settles locally but waits only 300 ms for the transaction to be mined.
  slow = await testService(["--payments", "on", "--x402", JSON.stringify(fx.config({ confirmationTimeoutMs: 300 }))], { pollingIntervalMs: 20 });
}, 60_000);

afterAll(async () => {
  service?.close();
  viaFacilitator?.close();
  slow?.close();
  await facilitator?.stop();
  await fx?.stop();
});

const buyerFetch = (target: TestService, key: `0x${string}`) =>
  fx.officialFetch(key, undefined, ((input: RequestInfo | URL, init?: RequestInit) => target.handle(new Request(input, init), "127.0.0.1")) as typeof fetch);
const post = (target: TestService, key: `0x${string}`, path: string, body: Json) =>
  buyerFetch(target, key)(`http://127.0.0.1:8402${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const balance = (address: `0x${string}`) => fx.token.balanceOf(address);
const addTicket = (target: TestService, seats: number, seatPriceMicros: number) =>
  target.store.tickets.add({ title: "Shared crawler", summary: "Seats in a shared crawler", terms: "Pro rata, 12 months", seats, seatPriceMicros, expiresAt: new Date(Date.now() + 3_600_000) }, new Date());

describe("paid capital commits (official buyers, anvil)", () => {
  it("sells capital.ticket's terms with the paying networks in how_to_commit", async () => {
    const ticket = await addTicket(service, 2, 300_000);
    const before = await balance(fx.buyer.address);
    const res = await post(service, fx.buyer.key, "/v1/jobs", { skill: "capital.ticket", ticket_id: ticket.id });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.ticket.terms).toBe("Pro rata, 12 months");
    expect(body.ticket.how_to_commit.payment).toMatchObject({ enabled: true, networks: [{ network: NETWORK, asset: fx.token.address, pay_to: refunder.address, price_per_seat_usd: "0.3" }] });
    expect(await balance(fx.buyer.address)).toBe(before - 10_000n);
  }, 30_000);

  it("two buyers racing for the last seat: one seat sold, one buyer charged, the loser refused without a charge", async () => {
    const ticket = await addTicket(service, 1, 250_000);
    const before = { buyer: await balance(fx.buyer.address), rival: await balance(rival.address), payTo: await balance(refunder.address) };
    const [a, b] = await Promise.all([
      post(service, fx.buyer.key, "/v1/capital/commit", { ticket_id: ticket.id, seats: 1, contact: "a@buyer.example" }),
      post(service, rival.key, "/v1/capital/commit", { ticket_id: ticket.id, seats: 1, contact: "b@rival.example" }),
    ]);
    const answers = [a, b];
    expect(answers.map((r) => r.status).sort()).toEqual([200, 410]);
    const winnerIndex = answers.findIndex((r) => r.status === 200);
    const winner = winnerIndex === 0 ? fx.buyer : rival;
    const loser = winnerIndex === 0 ? rival : fx.buyer;
    const won = answers[winnerIndex]!;
    const lost = answers[1 - winnerIndex]!;
    expect(await lost.json()).toMatchObject({ error: "CAPITAL_TICKET_FULL" });
    expect(lost.headers.get("payment-response")).toBeNull();

    const record = ((await won.json()) as Json).commitment;
    expect(record).toMatchObject({ ticket_id: ticket.id, seats: 1, total_usd: "0.25", state: "confirmed", network: NETWORK });
    expect(String(record.payer).toLowerCase()).toBe(winner.address.toLowerCase());
    const receipt = decodePaymentResponse(won.headers.get("payment-response") ?? "");
    if (!receipt.ok) throw new Error(receipt.reason);
    expect(record.transaction).toBe(receipt.value.transaction);
    expect((await fx.anvil.publicClient.getTransactionReceipt({ hash: record.transaction })).status).toBe("success");

    const after = { buyer: await balance(fx.buyer.address), rival: await balance(rival.address), payTo: await balance(refunder.address) };
    const spent = (who: Account) => (who === fx.buyer ? before.buyer - after.buyer : before.rival - after.rival);
    expect(spent(winner)).toBe(250_000n);
    expect(spent(loser)).toBe(0n);
    expect(after.payTo - before.payTo).toBe(250_000n);
    expect(await service.store.tickets.get(ticket.id, new Date())).toMatchObject({ seatsLeft: 0, state: "full" });
    expect((await service.store.tickets.listCommitments({ ticketId: ticket.id })).map((c) => c.state)).toEqual(["confirmed"]);
    // The loser's payment, if it got as far as verification, was released unused.
    const states = service.store.db.query<{ state: string }, []>("SELECT state FROM payment_receipts WHERE operation_id = 'capital.commit'").all().map((r) => r.state);
    expect(states.filter((s) => s === "settled")).toHaveLength(1);
    expect(states.every((s) => s === "settled" || s === "unused")).toBe(true);
  }, 60_000);

  it("releases the reserved seats when settlement fails, and nothing moves", async () => {
    const ticket = await addTicket(viaFacilitator, 2, 500_000);
    const payToBefore = await balance(fx.payTo);
    const res = await post(viaFacilitator, drained.key, "/v1/capital/commit", { ticket_id: ticket.id, seats: 2 });
    expect(res.status).toBe(402);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ error: "SETTLEMENT_FAILED", reason: "invalid_exact_evm_insufficient_balance" });
    expect(JSON.stringify(body)).not.toContain("cmt_");
    expect(await viaFacilitator.store.tickets.get(ticket.id, new Date())).toMatchObject({ seatsLeft: 2, state: "open" });
    const [held] = await viaFacilitator.store.tickets.listCommitments({ ticketId: ticket.id });
    expect(held).toMatchObject({ state: "released", releaseReason: "settlement failed", seats: 2 });
    expect(await balance(fx.payTo)).toBe(payToBefore);
    expect(facilitator.calls).toContain("POST /settle");
  }, 60_000);

  it("keeps the seats held while settlement is pending, and confirms the commitment once its receipt settles", async () => {
    const ticket = await addTicket(slow, 2, 200_000);
    const before = await balance(fx.buyer.address);
    await fx.anvil.rpc("evm_setAutomine", [false]);
    let pending: Json;
    try {
      const res = await post(slow, fx.buyer.key, "/v1/capital/commit", { ticket_id: ticket.id, seats: 1 });
      expect(res.status).toBe(504);
      pending = (await res.json()) as Json;
      expect(pending).toMatchObject({ error: "SETTLEMENT_PENDING" });
      const [held] = await slow.store.tickets.listCommitments({ ticketId: ticket.id });
      expect(held).toMatchObject({ state: "pending", seats: 1, paymentId: pending.payment_id, transaction: pending.transaction });
      expect((await slow.store.tickets.get(ticket.id, new Date()))?.seatsLeft).toBe(1);
      // The board's own pass follows the receipt: nothing moves while it is pending.
      const capital = createCapitalService({ tickets: slow.store.tickets, payments: slow.paymentInfo, log: createMemoryLogger(), now: () => new Date(), lookupPayment: async (id) => slow.gate?.lookup(id) });
      try {
        expect(await capital.reconcile()).toEqual({ confirmed: 0, released: 0 });
        await fx.anvil.rpc("evm_mine");
        expect(await slow.gate!.reconcile()).toMatchObject({ settled: 1 });
        expect(await capital.reconcile()).toEqual({ confirmed: 1, released: 0 });
      } finally {
        capital.stop();
      }
    } finally {
      await fx.anvil.rpc("evm_setAutomine", [true]);
    }
    const [confirmed] = await slow.store.tickets.listCommitments({ ticketId: ticket.id });
    expect(confirmed).toMatchObject({ state: "confirmed", transaction: pending.transaction });
    expect(String(confirmed!.payer).toLowerCase()).toBe(fx.buyer.address.toLowerCase());
    expect((await slow.store.tickets.get(ticket.id, new Date()))?.seatsLeft).toBe(1);
    expect(await balance(fx.buyer.address)).toBe(before - 200_000n);
  }, 60_000);

  it("confirms a hold left reserved by a lost request when the payment that request reserved settled", async () => {
    const { staleHoldMs } = await import("../../src/capital/service.ts");
    const ticket = await addTicket(service, 3, 100_000);
    const paid = await post(service, fx.buyer.key, "/v1/capital/commit", { ticket_id: ticket.id, seats: 1 });
    expect(paid.status).toBe(200);
    const { request_id: requestId, commitment } = (await paid.json()) as Json;
    // As if the server had stopped after that request's reservation and settlement, before recording it.
    const lost = await service.store.tickets.reserve({ ticketId: ticket.id, seats: 1, contact: null, requestId }, new Date(Date.now() - staleHoldMs - 1000));
    if (typeof lost === "string") throw new Error(lost);
    const capital = createCapitalService({
      tickets: service.store.tickets,
      payments: service.paymentInfo,
      log: createMemoryLogger(),
      now: () => new Date(),
      lookupPayment: async (id) => service.gate?.lookup(id),
      paymentOfRequest: (id) => service.store.receipts.findByRequest(id),
    });
    await capital.started;
    capital.stop();
    expect(await service.store.tickets.getCommitment(lost.id)).toMatchObject({ state: "confirmed", transaction: commitment.transaction, paymentId: commitment.payment_id });
  }, 30_000);

  it("cancelling a ticket with paid seats records refunds due, and the refund payer sends them back once", async () => {
    const ticket = await addTicket(service, 3, 100_000);
    const paid = await post(service, fx.buyer.key, "/v1/capital/commit", { ticket_id: ticket.id, seats: 2 });
    expect(paid.status).toBe(200);
    const commitmentId = ((await paid.json()) as Json).commitment.id as string;
    const beforeRefund = await balance(fx.buyer.address);

    const cancel = Bun.spawnSync([process.execPath, "src/main.ts", "tickets", "cancel", ticket.id, "--data", data], { cwd: root });
    expect(cancel.exitCode).toBe(0);
    const cancelled = JSON.parse(cancel.stdout.toString()) as Json;
    expect(cancelled.ticket.state).toBe("cancelled");
    expect(cancelled.refunds_recorded).toBe(1);
    expect(cancelled.refunds_due).toEqual([{ commitment_id: commitmentId, payer: expect.stringMatching(/^0x/i), network: NETWORK, amount_usd: "0.2", state: "due" }]);
    expect(await service.store.tickets.getCommitment(commitmentId)).toMatchObject({ refundState: "due", refundReason: expect.stringContaining("cancelled") });

    const senders = await loadRefundSenders(resolveNetworks(fx.config({}, { payTo: refunder.address, refundPrivateKey: refunder.key })), { pollingIntervalMs: 20 });
    const payer = createRefundPayer({ ledger: service.store.tickets, idField: "commitment_id", senders, log: createMemoryLogger(), confirmationTimeoutMs: 10_000 });
    expect(await payer.pass()).toMatchObject({ paid: 1 });
    expect(await payer.pass()).toMatchObject({ paid: 0, pending: 0 });
    expect(await balance(fx.buyer.address)).toBe(beforeRefund + 200_000n);
    const refunded = await service.store.tickets.getCommitment(commitmentId);
    expect(refunded).toMatchObject({ refundState: "paid" });
    expect((await fx.anvil.publicClient.getTransactionReceipt({ hash: refunded!.refundTx as `0x${string}` })).status).toBe("success");

    const listed = Bun.spawnSync([process.execPath, "src/main.ts", "commitments", "--ticket", ticket.id, "--data", data], { cwd: root });
    expect(JSON.parse(listed.stdout.toString())).toEqual([expect.objectContaining({ id: commitmentId, refund: expect.objectContaining({ state: "paid", transaction: refunded!.refundTx }) })]);
  }, 60_000);
});
