/**
 * POST /a2a with payments on, on both wires: the official A2A clients (@a2a-js/sdk: the default
 * v1.0 client from the agent card, and the v0.3 JSON-RPC transport) and the official x402 buyer
 * (@x402/core + @x402/evm) pay a skill on anvil through the A2A x402 extension's standalone flow:
 * input-required with x402.payment.required, then payment-submitted with x402.payment.payload on
 * the same task, then completed with payment-completed and x402.payment.receipts, by message and by
 * stream. Replays, a payload for other terms or for another task's offer, a failing skill and a
 * failed settlement end the task failed with payment-failed, no artifact, no charge. A task id is
 * the key to its task (issue 40): an id the server did not give is not found.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { TaskState } from "@a2a-js/sdk";
import type { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "../../src/x402/messages.ts";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { pluginFolder, skillSource } from "../support/plugin-files.ts";
import { type A2aCaller, type A2aContent, type A2aTask, a2aWires, sendPart, statusMetadata, streamPart } from "../support/a2a-client.ts";
import { type EvmFixture, NETWORK, USDC } from "../x402/evm-fixture.ts";
import { mcpProbeSource } from "../mcp/mcp-probe-plugin.ts";

type Task = A2aTask;

let stage: PaidStage;
let fx: EvmFixture;
let buyer: x402Client;

beforeAll(async () => {
  const folder = pluginFolder({ "mcp-probe.ts": mcpProbeSource, "a2a-later.ts": skillSource("a2a.later", { async: "true" }) });
  // Both wires run the table from one address: its unpaid offers would pass the default 30 a minute.
  stage = await startPaidStage({ plugins: folder, loopbackTargets: false, args: ["--rate-limit-per-min", "10000"] });
  fx = stage.fx;
  buyer = buyerFor(fx.buyer.key);
}, 60_000);

afterAll(async () => {
  await stage?.stop();
});

const buyerFor = (key: `0x${string}`): x402Client => stage.officialBuyer(key);

const sign = async (offer: PaymentRequired, client = buyer) => (await client.createPaymentPayload(offer as never)) as unknown as PaymentPayload;
const meta = statusMetadata;

async function balances() {
  return { buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) };
}

function expectPaymentFailed(task: A2aTask, code?: string) {
  expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
  expect(meta(task)["x402.payment.status"]).toBe("payment-failed");
  if (code) expect(meta(task)["x402.payment.error"]).toBe(code);
  expect(task.artifacts).toEqual([]);
}

for (const wire of a2aWires) {
  describe(`A2A skills with payments on, ${wire.name}`, () => {
    let a2a: A2aCaller;
    beforeAll(async () => {
      a2a = await wire.connect(stage.base);
      // The default client took the card's v1.0 interface; the legacy one speaks v0.3.
      expect(a2a.protocolVersion).toBe(wire.version);
    });

    const send = (parts: { data?: Record<string, unknown>; text?: string }, taskId = "", metadata?: Record<string, unknown>): Promise<Task> =>
      sendPart(a2a, parts.data ? { $case: "data", value: parts.data } : { $case: "text", value: parts.text ?? "" }, taskId, metadata);

    /** A task the skill opened: input-required with the offer in the status message metadata. */
    async function order(input: Record<string, unknown>, skill = "mcp.probe"): Promise<{ task: Task; offer: PaymentRequired }> {
      const task = await send({ data: { skill, ...input } });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(meta(task)["x402.payment.status"]).toBe("payment-required");
      const offer = meta(task)["x402.payment.required"] as PaymentRequired;
      expect(offer.x402Version).toBe(2);
      return { task, offer };
    }

    const submit = (task: Task, payload: unknown) => send({ text: "payment" }, task.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload });

    it("offers the exact price for the input in x402.payment.required, naming the A2A resource with the task's own offer id", async () => {
      const one = await order({ text: "hi" });
      const three = await order({ text: "hi", copies: 3 });
      expect(one.offer.accepts[0]).toMatchObject({ scheme: "exact", network: NETWORK, amount: "1000", payTo: fx.payTo });
      expect(three.offer.accepts[0]!.amount).toBe("3000");
      expect(one.offer.resource?.url).toMatch(/\/a2a\?skill=mcp\.probe&offer=[0-9a-f]{32}$/);
      expect(three.offer.resource?.url).not.toBe(one.offer.resource?.url);
    });

    it("is paid once on the task: completed with payment-completed and the receipt, the money moves once, and a replay on a new task is refused", async () => {
      const before = await balances();
      const { task, offer } = await order({ text: "paid", copies: 2 });
      const payload = await sign(offer);
      const done = await submit(task, payload);
      expect(done.id).toBe(task.id);
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(meta(done)["x402.payment.status"]).toBe("payment-completed");
      const receipts = meta(done)["x402.payment.receipts"] as SettleResponse[];
      expect(receipts).toHaveLength(1);
      expect(receipts[0]).toMatchObject({ success: true, network: NETWORK, amount: "2000" });
      expect(receipts[0]!.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: "data", value: { echoed: "paidpaid" } });
      const after = await balances();
      expect(after.buyer).toBe(before.buyer - 2000n);
      expect(after.payTo).toBe(before.payTo + 2000n);
      // The task is finished: tasks/get shows it completed; a new message on it is refused by the protocol.
      expect((await a2a.getTask({ tenant: "", id: task.id, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(String(await submit(task, payload).catch((e: Error) => e))).toMatch(/terminal|not|Unsupported/i);

      // The same payload on a new task for the same input: its resource names the first task's offer, and its nonce is spent.
      const again = await order({ text: "paid", copies: 2 });
      const replay = await submit(again.task, payload);
      expectPaymentFailed(replay);
      expect(JSON.stringify(replay)).not.toContain("paidpaid");
      // Even rewritten to name the new task's offer, the spent authorization settles nothing.
      const third = await order({ text: "paid", copies: 2 });
      const rewritten = await submit(third.task, { ...payload, resource: third.offer.resource });
      expectPaymentFailed(rewritten);
      expect(JSON.stringify(rewritten)).not.toContain("paidpaid");
      expect(await balances()).toEqual(after);
    });

    it("refuses a payload that pays other terms than the task's offer (cheaper input), runs nothing, charges nothing", async () => {
      const before = await balances();
      const cheap = await order({ text: "x" });
      const dear = await order({ text: "x", copies: 3 });
      const refused = await submit(dear.task, await sign(cheap.offer));
      expectPaymentFailed(refused, "PAYMENT_INVALID");
      expect(await balances()).toEqual(before);
    });

    it("refuses on a task a payment made for another task's offer of the very same terms; that payment still pays its own task", async () => {
      const mine = await order({ text: "twin" });
      const theirs = await order({ text: "twin" });
      expect(theirs.offer.accepts).toEqual(mine.offer.accepts);
      const theirPayload = await sign(theirs.offer);
      const before = await balances();
      const refused = await submit(mine.task, theirPayload);
      expectPaymentFailed(refused, "PAYMENT_INVALID");
      expect(await balances()).toEqual(before);
      const paid = await submit(theirs.task, theirPayload);
      expect(paid.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await balances()).buyer).toBe(before.buyer - 1000n);
    });

    it("finds no task by an id it did not give: a message, a read, a cancel and a payment on a made-up id are refused, and no task is made under it", async () => {
      const { offer } = await order({ text: "guess" });
      const madeUp = crypto.randomUUID();
      const before = await balances();
      for (const attempt of [
        () => submit({ id: madeUp } as Task, {}),
        () => send({ text: "payment" }, madeUp, { "x402.payment.status": "payment-submitted", "x402.payment.payload": { resource: offer.resource, accepted: offer.accepts[0] } }),
        () => a2a.getTask({ tenant: "", id: madeUp, historyLength: undefined }),
        () => a2a.cancelTask({ tenant: "", id: madeUp, metadata: undefined }),
      ]) {
        expect(String(await attempt().catch((e: Error) => e))).toMatch(/not found/i);
      }
      expect(String(await a2a.getTask({ tenant: "", id: madeUp, historyLength: undefined }).catch((e: Error) => e))).toMatch(/not found/i);
      expect(await balances()).toEqual(before);
    });

    it("charges nothing for a failing skill: failed, payment-failed, no artifact, the authorization released", async () => {
      const before = await balances();
      const { task, offer } = await order({ text: "f", fail: true });
      const failed = await submit(task, await sign(offer));
      expectPaymentFailed(failed, "SOURCE_UNREACHABLE");
      expect(await balances()).toEqual(before);
    });

    it("withholds the result when settlement fails (the buyer drained its balance during the work): payment-failed with the failed receipt, nothing charged", async () => {
      const drained = await fx.anvil.fundedAccount();
      await fx.token.mint(drained.address, 1n * USDC);
      const { task, offer } = await order({ text: "secret result", wait_ms: 1500 });
      const payload = await sign(offer, buyerFor(drained.key));
      const payToBefore = await fx.token.balanceOf(fx.payTo);
      const pending = submit(task, payload);
      await Bun.sleep(300);
      await fx.token.transfer(drained.key, fx.buyer.address, 1n * USDC);
      const result = await pending;
      expectPaymentFailed(result);
      expect((meta(result)["x402.payment.receipts"] as SettleResponse[])[0]).toMatchObject({ success: false });
      expect(JSON.stringify(result)).not.toContain("secret resultsecret");
      expect(await fx.token.balanceOf(fx.payTo)).toBe(payToBefore);
    });

    it("pays over the stream: the offer and then the receipt ride on the final status update, the result on an artifact update, charged once", async () => {
      const finalStatus = (events: Awaited<ReturnType<typeof streamPart>>) => {
        const last = events.at(-1);
        if (last?.$case !== "statusUpdate") throw new Error(`the stream ended on ${last?.$case}`);
        return last.value;
      };
      const offered = finalStatus(await streamPart(a2a, { $case: "data", value: { skill: "mcp.probe", text: "sse" } }));
      expect(offered.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const offer = offered.status?.message?.metadata?.["x402.payment.required"] as PaymentRequired;
      const before = await balances();
      const content: A2aContent = { $case: "text", value: "payment" };
      const events = await streamPart(a2a, content, offered.taskId, { "x402.payment.status": "payment-submitted", "x402.payment.payload": await sign(offer) });
      const paid = finalStatus(events);
      expect(paid.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(paid.status?.message?.metadata?.["x402.payment.status"]).toBe("payment-completed");
      expect((paid.status?.message?.metadata?.["x402.payment.receipts"] as SettleResponse[])[0]).toMatchObject({ success: true, amount: "1000" });
      expect(events.find((e) => e?.$case === "artifactUpdate")).toMatchObject({ value: { artifact: { parts: [{ content: { $case: "data", value: { echoed: "sse" } } }] } } });
      expect(await balances()).toEqual({ buyer: before.buyer - 1000n, payTo: before.payTo + 1000n });
    });

    it("pays an async skill: the task works on the job with the payment verified, and tasks/get ends it completed with the receipt, charged once", async () => {
      const before = await balances();
      const { task, offer } = await order({ word: "job" }, "a2a.later");
      expect(offer.accepts[0]!.amount).toBe("2000");
      const working = await submit(task, await sign(offer));
      expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      expect(meta(working)["x402.payment.status"]).toBe("payment-verified");
      let done = working;
      // Polled for up to 20 s: a loaded machine (two test lanes beside the type check) runs the job late, not differently.
      for (const until = Date.now() + 20_000; Date.now() < until && done.status?.state === TaskState.TASK_STATE_WORKING; ) {
        await Bun.sleep(20);
        done = await a2a.getTask({ tenant: "", id: task.id, historyLength: undefined });
      }
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(meta(done)["x402.payment.status"]).toBe("payment-completed");
      expect((meta(done)["x402.payment.receipts"] as SettleResponse[])[0]).toMatchObject({ success: true, amount: "2000" });
      expect((done.artifacts[0]?.parts[0]?.content as { value: Record<string, unknown> }).value).toMatchObject({ status: "completed", result: { upper: "JOB" } });
      const after = await balances();
      expect(after.buyer).toBe(before.buyer - 2000n);
      expect(after.payTo).toBe(before.payTo + 2000n);
    });

    it("cancels the task on payment-rejected, charging nothing; a message without a payment status keeps the offer open", async () => {
      const { task, offer } = await order({ text: "no" });
      const still = await send({ text: "what?" }, task.id);
      expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(meta(still)["x402.payment.required"]).toEqual(offer);
      const rejected = await send({ text: "no thanks" }, task.id, { "x402.payment.status": "payment-rejected" });
      expect(rejected.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(meta(rejected)["x402.payment.status"]).toBe("payment-rejected");
      expect(rejected.artifacts).toEqual([]);
    });
  });
}
