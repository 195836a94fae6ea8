/**
 * The a2a-x402 flow on tasks kept in a real PostgreSQL (`serve --database-url`), across the two
 * wires: the default v1.0 client opens the task and gets the offer, the v0.3 client pays on that
 * very task, and the v1.0 client reads it back completed with the receipt; the money moves once and
 * a made-up task id is not found on either wire. (The same flow on SQLite: a2a-paid.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { TaskState } from "@a2a-js/sdk";
import type { PaymentRequired, SettleResponse } from "../../src/x402/messages.ts";
import { mcpProbeSource } from "../mcp/mcp-probe-plugin.ts";
import { type A2aCaller, a2aWires, sendPart, statusMetadata } from "../support/a2a-client.ts";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { pluginFolder } from "../support/plugin-files.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { filePostgres } from "../support/store-engines.ts";

const postgres = filePostgres("a2a_flow", "the A2A flow on PostgreSQL");
let stage: PaidStage;
let v1: A2aCaller;
let v03: A2aCaller;
let url: string;

beforeAll(async () => {
  if (postgres.skip) return;
  url = await postgres.freshDatabase();
  stage = await startPaidStage({ plugins: pluginFolder({ "mcp-probe.ts": mcpProbeSource }), loopbackTargets: false, args: ["--database-url", url] });
  [v1, v03] = (await Promise.all(a2aWires.map((wire) => wire.connect(stage.base)))) as [A2aCaller, A2aCaller];
}, 180_000);

// The stage's stop closes a PostgreSQL pool and anvil: over bun's default 5 s on a loaded machine.
afterAll(async () => {
  await stage?.stop();
}, 60_000);

describe.skipIf(postgres.skip)("A2A tasks on PostgreSQL, across the two wires", () => {
  it("opens a task over v1.0, pays it over v0.3, reads it back over v1.0 completed with the receipt, charged once", async () => {
    const { fx } = stage;
    const balance = () => fx.token.balanceOf(fx.buyer.address);
    const opened = await sendPart(v1, { $case: "data", value: { skill: "mcp.probe", text: "pg" } });
    expect(opened.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const offer = statusMetadata(opened)["x402.payment.required"] as PaymentRequired;
    const before = await balance();
    const payload = await stage.officialBuyer().createPaymentPayload(offer as never);
    const paid = await sendPart(v03, { $case: "text", value: "payment" }, opened.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload });
    expect(paid.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const read = await v1.getTask({ tenant: "", id: opened.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(statusMetadata(read)["x402.payment.status"]).toBe("payment-completed");
    expect((statusMetadata(read)["x402.payment.receipts"] as SettleResponse[])[0]).toMatchObject({ success: true, amount: "1000" });
    expect(read.artifacts[0]?.parts[0]?.content).toEqual({ $case: "data", value: { echoed: "pg" } });
    expect(await balance()).toBe(before - 1000n);
    // The task is a row of the PostgreSQL database, not of the :memory: SQLite beside it.
    const sql = await openPostgres({ url, migrations: [], max: 1 });
    try {
      expect((await sql<{ state: string }[]>`SELECT (task::jsonb) #>> '{status,state}' AS state FROM a2a_tasks WHERE id = ${opened.id}`)[0]?.state).toBe(String(TaskState.TASK_STATE_COMPLETED));
    } finally {
      await sql.end({ timeout: 1 });
    }
    for (const client of [v1, v03]) expect(String(await client.getTask({ tenant: "", id: crypto.randomUUID(), historyLength: undefined }).catch((e: Error) => e))).toMatch(/not found/i);
  }, 60_000);
});
