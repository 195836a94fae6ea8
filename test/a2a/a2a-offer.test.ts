/**
 * The A2A offer is bound to its task, apart from the core's price check: a task opened before a
 * price change keeps the terms it offered, so a payload signed for the new price on another task
 * (which the core's exact-price match accepts: the same skill, the same input, today's price) is
 * refused on the old task, and nothing is run or charged. The same payload pays the task it was
 * offered on. Tasks outlive the restart that brings the new price (they are rows of the database).
 * And a task is paid once: two payments sent at once on one task do not both run it. The same
 * flow over `message/stream`: the offer and the receipt ride on the streamed final status.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role, TaskState } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import type { PaymentRequired } from "../../src/x402/messages.ts";
import { onFreshPort, onSamePort } from "../support/ports.ts";
import { pluginFolder, pluginSource } from "../support/plugin-files.ts";
import { type A2aContent, type A2aTask, sendPart, statusMetadata } from "../support/a2a-client.ts";
import { type EvmFixture, NETWORK, startEvmFixture } from "../x402/evm-fixture.ts";

type Task = A2aTask;

const dataDir = mkdtempSync(join(tmpdir(), "tb-a2a-offer-"));
// The plugin at one price, then at a higher one (a new folder: a module is imported once per path).
const priced = (price: string) => pluginFolder({ "a2a-priced.ts": pluginSource("a2a.priced", "POST /v1/a2a-priced", `"${price}"`) });
const folders = [priced("0.001"), priced("0.003")];
/** The service's port: chosen at the first start, kept by the restart (the tasks' offers name the old URL). */
let port: number;
let fx: EvmFixture;
let service: RunningService;
let a2a: LegacyJsonRpcTransport;

function startOn(folder: string, chosen: number): Promise<RunningService> {
  const config = loadConfig({
    argv: ["--data", dataDir, "--port", String(chosen), "--host", "127.0.0.1", "--public-url", `http://127.0.0.1:${chosen}`, "--payments", "on", "--plugins", folder, "--memory-soft-limit-mb", "0"],
    env: { TOLLBOOTH_X402: JSON.stringify(fx.config()) },
  });
  return startService(config, { log: createMemoryLogger(), pollingIntervalMs: 20 });
}

/** The first start on a fresh port; a restart on the same one. */
async function start(folder: string) {
  if (port === undefined) {
    service = await onFreshPort((chosen) => startOn(folder, chosen));
    port = service.server.port;
  } else {
    service = await onSamePort(port, (same) => startOn(folder, same));
  }
  a2a = new LegacyJsonRpcTransport({ endpoint: `http://127.0.0.1:${port}/a2a` });
}

beforeAll(async () => {
  fx = await startEvmFixture();
  await start(folders[0]!);
}, 60_000);

afterAll(async () => {
  await service?.close();
  await fx?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const send = (content: A2aContent, taskId = "", metadata?: Record<string, unknown>): Promise<Task> => sendPart(a2a, content, taskId, metadata);

const meta = statusMetadata;
const order = async () => {
  const task = await send({ $case: "data", value: { skill: "a2a.priced", text: "same input" } });
  expect(meta(task)["x402.payment.status"]).toBe("payment-required");
  return { task, offer: meta(task)["x402.payment.required"] as PaymentRequired };
};
const submit = (task: Task, payload: unknown) => send({ $case: "text", value: "payment" }, task.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload });
function buyer(): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(fx.buyer.key), networks: [NETWORK] });
  client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
  return client;
}
const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });

describe("the A2A offer is the task's own", () => {
  it("refuses on a task a payload for terms offered on another task, even when the core would take it for the same input; the payload pays its own task", async () => {
    const old = await order();
    expect(old.offer.accepts[0]!.amount).toBe("1000");
    // The operator raises the price and restarts: the old task keeps its offer.
    await service.close();
    await start(folders[1]!);
    const fresh = await order();
    expect(fresh.offer.accepts[0]!.amount).toBe("3000");

    const payload = await buyer().createPaymentPayload(fresh.offer as never);

    const before = await balances();
    const refused = await submit(old.task, payload);
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(meta(refused)["x402.payment.status"]).toBe("payment-failed");
    expect(meta(refused)["x402.payment.error"]).toBe("PAYMENT_INVALID");
    expect(refused.artifacts).toEqual([]);
    expect(await balances()).toEqual(before);

    // The very payload is good where it was offered: the core takes it for this input at today's price.
    const paid = await submit(fresh.task, payload);
    expect(paid.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(meta(paid)["x402.payment.status"]).toBe("payment-completed");
    expect(paid.artifacts[0]?.parts[0]?.content).toEqual({ $case: "data", value: { reversed: "tupni emas" } });
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 3000n);
  }, 30_000);

  it("runs a task once when two different payments for its offer arrive at once: one completes and is charged, the other is refused as the task has ended", async () => {
    const { task, offer } = await order();
    const signer = buyer();
    const payloads = [await signer.createPaymentPayload(offer as never), await signer.createPaymentPayload(offer as never)];
    expect(JSON.stringify(payloads[0])).not.toBe(JSON.stringify(payloads[1]));
    const before = await balances();
    const answers = await Promise.all(payloads.map((payload) => submit(task, payload).catch((error: Error) => error)));
    const completed = answers.filter((a) => !(a instanceof Error) && a.status?.state === TaskState.TASK_STATE_COMPLETED);
    const refused = answers.filter((a) => a instanceof Error);
    expect(completed).toHaveLength(1);
    expect(String(refused[0])).toContain("terminal state");
    const price = BigInt(offer.accepts[0]!.amount);
    expect(await balances()).toEqual({ buyer: before.buyer - price, payTo: before.payTo + price });
  }, 30_000);

  it("pays over message/stream: the offer and then the receipt ride on the final status update, the result on an artifact update", async () => {
    const streamed = async (content: { $case: "data"; value: Record<string, unknown> } | { $case: "text"; value: string }, taskId = "", metadata?: Record<string, unknown>) => {
      const events = [];
      const parts = [{ content, metadata: undefined, filename: "", mediaType: "" }];
      for await (const event of a2a.sendMessageStream({ tenant: "", message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts, metadata, extensions: [], referenceTaskIds: [] }, configuration: undefined, metadata: undefined })) events.push(event.payload!);
      const last = events.at(-1)!;
      if (last.$case !== "statusUpdate") throw new Error(`the stream ended on ${last.$case}`);
      return { events, status: last.value.status!, taskId: last.value.taskId };
    };
    const offered = await streamed({ $case: "data", value: { skill: "a2a.priced", text: "streamed" } });
    expect(offered.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(offered.status.message?.metadata?.["x402.payment.status"]).toBe("payment-required");
    const offer = offered.status.message?.metadata?.["x402.payment.required"] as PaymentRequired;
    const before = await balances();
    const paid = await streamed({ $case: "text", value: "payment" }, offered.taskId, { "x402.payment.status": "payment-submitted", "x402.payment.payload": await buyer().createPaymentPayload(offer as never) });
    expect(paid.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(paid.status.message?.metadata?.["x402.payment.status"]).toBe("payment-completed");
    expect((paid.status.message?.metadata?.["x402.payment.receipts"] as { success: boolean }[])[0]!.success).toBe(true);
    expect(paid.events.find((e) => e.$case === "artifactUpdate")).toMatchObject({ value: { artifact: { parts: [{ content: { $case: "data", value: { reversed: "demaerts" } } }] } } });
    const price = BigInt(offer.accepts[0]!.amount);
    expect(await balances()).toEqual({ buyer: before.buyer - price, payTo: before.payTo + price });
  }, 30_000);
});
