/**
 * One paid scenario table run through the three transports over the one paid-call core, with the
 * official clients on anvil: HTTP (the x402 HTTP client's PAYMENT-SIGNATURE header), MCP (the MCP
 * SDK client, `_meta["x402/payment"]`) and A2A (the A2A SDK client, `x402.payment.payload` on the
 * task that made the offer). Each transport: the same offer for the same input, paid once with the
 * money moved once, a replayed payment refused, a payment for cheaper input refused, failing
 * work never charged, a failed settlement releasing nothing, and concurrent identical payments
 * charged once. The transport files (test/mcp/, test/a2a/, test/flows/) test the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "../src/x402/messages.ts";
import { mcpProbeSource } from "./mcp/mcp-probe-plugin.ts";
import { type PaidStage, startPaidStage } from "./support/paid-stage.ts";
import { connectPaidTransports, type PaidTransports, type Transport } from "./support/paid-transports.ts";
import { pluginFolder } from "./support/plugin-files.ts";
import { type EvmFixture, NETWORK, USDC } from "./x402/evm-fixture.ts";

let stage: PaidStage;
let fx: EvmFixture;
let buyer: x402Client;
let transports: PaidTransports;

beforeAll(async () => {
  stage = await startPaidStage({ plugins: pluginFolder({ "mcp-probe.ts": mcpProbeSource }), args: ["--rate-limit-per-min", "10000"], loopbackTargets: false });
  ({ fx } = stage);
  buyer = buyerFor(fx.buyer.key);
  transports = await connectPaidTransports(stage.base, buyer, { path: "/v1/mcp-probe", tool: "mcp_probe", skill: "mcp.probe" });
}, 60_000);

afterAll(async () => {
  await transports?.close();
  await stage?.stop();
});

const buyerFor = (key: `0x${string}`): x402Client => stage.officialBuyer(key);

const sign = async (offer: PaymentRequired, signer = buyer) => (await signer.createPaymentPayload(offer as never)) as unknown as PaymentPayload;
const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });

describe.each(["http", "mcp", "a2a"] as const)("paid mcp.probe over %s", (name) => {
  // The clients connect in beforeAll; the table is built before it runs.
  const transport: Transport = { name: name.toUpperCase(), order: (input) => transports[name].order(input) };
  it("offers the exact price for the input, the same on every transport", async () => {
    const one = await transport.order({ text: "hi" });
    const three = await transport.order({ text: "hi", copies: 3 });
    expect(one.offer.x402Version).toBe(2);
    expect(one.offer.accepts[0]).toMatchObject({ scheme: "exact", network: NETWORK, amount: "1000", payTo: fx.payTo });
    expect(three.offer.accepts[0]!.amount).toBe("3000");
  });

  it("is paid once: the result is released, the money moves once, and the same payment sent again is refused", async () => {
    const before = await balances();
    const input = { text: `${transport.name}-paid`, copies: 2 };
    const order = await transport.order(input);
    const payload = await sign(order.offer);
    const paid = await order.pay(payload);
    expect(paid.settled).toBe(true);
    expect(paid.answer).toContain(`${transport.name}-paid${transport.name}-paid`);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 2000n);
    expect(after.payTo).toBe(before.payTo + 2000n);

    const replay = await (await transport.order(input)).pay(payload);
    expect(replay.settled).toBe(false);
    expect(replay.answer).not.toContain(`${transport.name}-paid${transport.name}-paid`);
    expect(await balances()).toEqual(after);
  });

  it("refuses a payment signed for cheaper input: nothing runs, nothing is charged", async () => {
    const before = await balances();
    const cheap = await transport.order({ text: `${transport.name}-cheap` });
    const dear = await transport.order({ text: `${transport.name}-cheap`, copies: 3 });
    const refused = await dear.pay(await sign(cheap.offer));
    expect(refused.settled).toBe(false);
    expect(refused.answer).not.toContain(`${transport.name}-cheap${transport.name}-cheap`);
    expect(await balances()).toEqual(before);
  });

  it("never charges failing work: the skill's error comes back, no payment response, the balances unchanged", async () => {
    const before = await balances();
    const order = await transport.order({ text: "f", fail: true });
    const failed = await order.pay(await sign(order.offer));
    expect(failed.settled).toBe(false);
    expect(failed.error).toBe("SOURCE_UNREACHABLE");
    expect(await balances()).toEqual(before);
  });

  it("releases nothing and charges nothing when settlement fails (the buyer drains its balance while the work runs)", async () => {
    const drained = await fx.anvil.fundedAccount();
    await fx.token.mint(drained.address, 1n * USDC);
    const input = { text: `${transport.name}-secret`, copies: 2, wait_ms: 1500 };
    const order = await transport.order(input);
    const payload = await sign(order.offer, buyerFor(drained.key));
    const before = await balances();
    const pending = order.pay(payload);
    await Bun.sleep(300);
    await fx.token.transfer(drained.key, fx.buyer.address, 1n * USDC);
    const failed = await pending;
    expect(failed.settled).toBe(false);
    expect(failed.released).toBe(false);
    expect(failed.answer).not.toContain(`${transport.name}-secret${transport.name}-secret`);
    expect(await fx.token.balanceOf(drained.address)).toBe(0n);
    expect(await balances()).toEqual({ buyer: before.buyer + 1n * USDC, payTo: before.payTo });
  });

  it("charges once for concurrent identical payments: exactly one succeeds, the other is refused as in flight before any work, the money moves once", async () => {
    const before = await balances();
    const input = { text: `${transport.name}-twice`, wait_ms: 1000 };
    const first = await transport.order(input);
    const second = await transport.order(input);
    const payload = await sign(first.offer);
    // An A2A payment names its task's offer (issue 40): the copy for the second task is rewritten to
    // name that task's (the field is not signed), so it reaches the reservation.
    const copy = transport.name === "A2A" ? { ...payload, resource: second.offer.resource } : payload;
    const outcomes = await Promise.all([first.pay(payload), second.pay(copy as PaymentPayload)]);
    expect(outcomes.filter((o) => o.settled)).toHaveLength(1);
    expect(outcomes.filter((o) => o.released)).toHaveLength(1);
    // Refused by the reservation, not by a settlement that failed after running the work again.
    expect(outcomes.find((o) => !o.settled)!.error).toMatch(/^payment_in_flight$/i);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 1000n);
    expect(after.payTo).toBe(before.payTo + 1000n);
  });
});
