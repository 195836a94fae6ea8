/**
 * job.quote and job.run.* paid end to end with the official x402 buyer (@x402/fetch) on anvil and
 * the loopback model server: the quote is settled once and bound to its payer; its run settles
 * once when it completes; another payer's run is refused before its payment is verified; of two
 * runs racing for one quote one wins and the other is refused and not charged; a failed run
 * settles nothing. Balances are read from the chain. @see issue 17
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { until } from "../jobs/job-skills.ts";
import { type ChatServer, startChatServer } from "../support/chat-server.ts";
import { type TestService, testService } from "../support/service.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type EvmFixture, startEvmFixture, USDC } from "../x402/evm-fixture.ts";
import { type ModelScript, scriptedModel } from "./model-support.ts";

type Json = Record<string, unknown>;
let fx: EvmFixture;
let service: TestService;
let other: { key: `0x${string}`; address: `0x${string}` };
let web: SiteServer;
let chat: ChatServer;
const script: ModelScript = { review: { tier: "t1", policy_problem: null }, reads: [], answer: "Open Monday to Friday, 9:00-17:00." };

beforeAll(async () => {
  fx = await startEvmFixture();
  other = await fx.anvil.fundedAccount();
  await fx.token.mint(other.address, 10n * USDC);
  web = startSiteServer();
  web.set("/hours", "<!doctype html><html><head><title>Hours</title></head><body><main><h1>Hours</h1><p>Monday to Friday, 9:00 to 17:00, closed at weekends.</p></main></body></html>");
  script.reads = [web.url("/hours")];
  chat = startChatServer(scriptedModel(script));
  service = await testService(
    ["--payments", "on", "--x402", JSON.stringify(fx.config()), "--unsafe-allow-loopback-targets", "--llm-base-url", chat.baseUrl, "--llm-api-key", "sk-test", "--llm-model", "test-model", "--llm-max-retries", "0"],
    { pollingIntervalMs: 20 },
  );
}, 60_000);

afterAll(async () => {
  await service?.close();
  await chat?.stop();
  await web?.stop();
  await fx?.stop();
});

const balance = (address: `0x${string}`) => fx.token.balanceOf(address);
const finished = (id: string) =>
  until(
    async () => {
      const body = (await (await service.request(`/v1/jobs/${id}`)).json()) as Json;
      return ["completed", "failed", "expired"].includes(String(body.status)) ? body : undefined;
    },
    15_000,
    `job ${id} to finish`,
  );
let asked = 0;
/** A paid accepted quote for a fresh goal (a new goal each time, so no repeat). */
async function paidQuote(): Promise<Json> {
  asked++;
  const res = await buy(fx.buyer.key, { skill: "job.quote", goal: `Extract the opening hours (part ${asked}) from ${web.url("/hours")} as JSON`, budget_usdc: 1 });
  expect(res.status).toBe(200);
  const result = ((await res.json()) as Json).result as Json;
  expect(result).toMatchObject({ decision: "accept", run_skill: "job.run.t1", price: "0.50" });
  return result;
}

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
    const stored = (await service.store.quotes.recent(10)).find((q) => q.goal === goal);
    expect(stored?.payer).toBe(fx.buyer.address.toLowerCase());
  }, 30_000);

  it("runs a paid quote: 402 at the tier price, settled once when the run completes", async () => {
    const before = await balance(fx.buyer.address);
    const q = await paidQuote();
    const preview = await service.request("/v1/jobs", { method: "POST", json: { skill: "job.run.t1", quote_id: q.quote_id } });
    expect(preview.status).toBe(402);
    expect(((await preview.json()) as { accepts: { amount: string }[] }).accepts[0]?.amount).toBe("500000");
    const res = await buy(fx.buyer.key, { skill: "job.run.t1", quote_id: q.quote_id });
    expect(res.status).toBe(202);
    const job = await finished(String(((await res.json()) as Json).job_id));
    expect(job).toMatchObject({ status: "completed", payment: { settled: true }, result: { quote_id: q.quote_id, partial: false } });
    expect(await balance(fx.buyer.address)).toBe(before - 50_000n - 500_000n);
    const receipts = service.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM payment_receipts WHERE operation_id = 'job.run.t1' AND state = 'settled'").get();
    expect(receipts?.n).toBe(1);
  }, 30_000);

  it("refuses another payer's run of a bound quote with 403 before its payment is verified, charging nothing", async () => {
    const q = await paidQuote();
    const before = await balance(other.address);
    const res = await buy(other.key, { skill: "job.run.t1", quote_id: q.quote_id });
    expect(res.status).toBe(403);
    expect(((await res.json()) as Json).error).toBe("QUOTE_PAYER_MISMATCH");
    expect(await balance(other.address)).toBe(before);
    expect((await service.store.quotes.get(String(q.quote_id)))?.usedAt).toBeNull();
    const seen = service.store.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM payment_receipts WHERE lower(payer) = ?").get(other.address.toLowerCase());
    expect(seen?.n ?? 0).toBe(0);
  }, 30_000);

  it("of two paid runs racing for one quote, one is accepted and the other refused 409 and never charged", async () => {
    const q = await paidQuote();
    const before = await balance(fx.buyer.address);
    const [a, b] = await Promise.all([buy(fx.buyer.key, { skill: "job.run.t1", quote_id: q.quote_id }), buy(fx.buyer.key, { skill: "job.run.t1", quote_id: q.quote_id })]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    const [winner, loser] = a.status === 202 ? [a, b] : [b, a];
    expect(((await loser.json()) as Json).error).toBe("QUOTE_USED");
    const job = await finished(String(((await winner.json()) as Json).job_id));
    expect(job.status).toBe("completed");
    expect(await balance(fx.buyer.address)).toBe(before - 500_000n);
    const states = service.store.db.query<{ state: string }, []>("SELECT state FROM payment_receipts WHERE operation_id = 'job.run.t1' ORDER BY rowid DESC LIMIT 2").all().map((r) => r.state).sort();
    expect(states).toEqual(["settled", "unused"]);
  }, 30_000);

  it("settles nothing for a run that fails, and the quote can be run again", async () => {
    const q = await paidQuote();
    const before = await balance(fx.buyer.address);
    script.answer = { status: 500 };
    try {
      const res = await buy(fx.buyer.key, { skill: "job.run.t1", quote_id: q.quote_id });
      expect(res.status).toBe(202);
      const job = await finished(String(((await res.json()) as Json).job_id));
      expect(job).toMatchObject({ status: "failed", payment: { settled: false } });
      expect(await balance(fx.buyer.address)).toBe(before);
      expect((await service.store.quotes.get(String(q.quote_id)))?.usedAt).toBeNull();
    } finally {
      script.answer = "Open Monday to Friday, 9:00-17:00.";
    }
  }, 30_000);
});
