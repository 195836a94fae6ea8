/**
 * A settlement that is not confirmed in time, over MCP: the official MCP client pays a tool while
 * anvil mines nothing; the tool result is an error with SETTLEMENT_PENDING and the transaction, no
 * tool content of the work and no fresh offer (paying again could pay twice), and
 * `_meta["x402/payment-response"]` says `settlement_pending`. The same payment sent again runs
 * nothing; `payment_status` shows the payment pending, and settled once the block is mined and the
 * payment reconciled: charged once.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import type { PaymentRequired, SettleResponse } from "../../src/x402/messages.ts";
import { onFreshPort } from "../support/ports.ts";
import { pluginFolder } from "../support/plugin-files.ts";
import { type EvmFixture, NETWORK, startEvmFixture } from "../x402/evm-fixture.ts";
import { mcpProbeSource } from "./mcp-probe-plugin.ts";

let fx: EvmFixture;
let service: RunningService;
let mcp: Client;

beforeAll(async () => {
  fx = await startEvmFixture();
  const folder = pluginFolder({ "mcp-probe.ts": mcpProbeSource });
  service = await onFreshPort((port) => {
    const config = loadConfig({
      argv: ["--data", ":memory:", "--port", String(port), "--host", "127.0.0.1", "--public-url", `http://127.0.0.1:${port}`, "--payments", "on", "--plugins", folder, "--memory-soft-limit-mb", "0"],
      // A settlement not confirmed within 300 ms is pending.
      env: { TOLLBOOTH_X402: JSON.stringify(fx.config({ confirmationTimeoutMs: 300 })) },
    });
    return startService(config, { log: createMemoryLogger(), pollingIntervalMs: 20 });
  });
  mcp = new Client({ name: "mcp-pending-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${service.server.url.toString().replace(/\/$/, "")}/mcp`)));
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await service?.close();
  await fx?.stop();
});

const call = (args: Record<string, unknown>, payment?: unknown, name = "mcp_probe") =>
  mcp.callTool({ name, arguments: args, ...(payment !== undefined ? { _meta: { "x402/payment": payment } } : {}) }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });

describe("MCP with a settlement not confirmed in time", () => {
  it("answers SETTLEMENT_PENDING with the transaction and no result or offer; a replay runs nothing; the payment settles once when mined", async () => {
    const buyer = new x402Client();
    registerExactEvmScheme(buyer, { signer: privateKeyToAccount(fx.buyer.key), networks: [NETWORK] });
    buyer.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
    const offer = (await call({ text: "slow chain", copies: 2 })).structuredContent as unknown as PaymentRequired;
    const payment = await buyer.createPaymentPayload(offer as never);
    const before = await balances();

    await fx.anvil.rpc("evm_setAutomine", [false]);
    let transaction: string;
    try {
      const result = await call({ text: "slow chain", copies: 2 }, payment);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).not.toHaveProperty("accepts");
      const body = JSON.parse(textOf(result)) as { ok: boolean; error: string; transaction: string };
      expect(body).toMatchObject({ ok: false, error: "SETTLEMENT_PENDING" });
      expect(body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      transaction = body.transaction;
      const settlement = (result._meta as Record<string, unknown>)["x402/payment-response"] as SettleResponse;
      expect(settlement).toMatchObject({ success: false, errorReason: "settlement_pending", transaction });
      expect(JSON.stringify(result)).not.toContain("slow chainslow chain");

      const replay = await call({ text: "slow chain", copies: 2 }, payment);
      expect(replay.isError).toBe(true);
      expect(JSON.stringify(replay)).not.toContain("slow chainslow chain");
      const status = JSON.parse(textOf(await call({ id: transaction }, undefined, "payment_status"))) as { payment: { state: string } };
      expect(status.payment.state).toBe("pending");
      expect(await balances()).toEqual(before);
      await fx.anvil.rpc("evm_mine");
    } finally {
      await fx.anvil.rpc("evm_setAutomine", [true]);
    }
    expect(await service.gate!.reconcile()).toMatchObject({ settled: 1, stillPending: 0 });
    const settled = JSON.parse(textOf(await call({ id: transaction }, undefined, "payment_status"))) as { payment: { state: string } };
    expect(settled.payment.state).toBe("settled");
    expect(await balances()).toEqual({ buyer: before.buyer - 2000n, payTo: before.payTo + 2000n });
  }, 30_000);
});
