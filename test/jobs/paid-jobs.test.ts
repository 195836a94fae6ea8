/**
 * Paid async jobs end to end on anvil with the official @x402/fetch buyer: verified at
 * submission, settled only when the job completes (result released after), nothing settled for
 * a job past its timeout, an Idempotency-Key replay never charges twice, and an authorization
 * that cannot wait is settled at acceptance with a refund recorded when the job fails by our
 * fault. Balances are read from the chain. @see issue 6
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { decodePaymentResponse } from "../../src/x402/headers.ts";
import { type TestService, testService } from "../support/service.ts";
import { type EvmFixture, startEvmFixture } from "../x402/evm-fixture.ts";
import { crashSkill, gatedSkill, installGates, jobSkillFolder, overrunSkill, type GateControl, until } from "./job-skills.ts";

let fx: EvmFixture;
let gates: GateControl;
let service: TestService;
let prepaid: TestService;


beforeAll(async () => {
  fx = await startEvmFixture();
  gates = installGates();
  const folder = jobSkillFolder({ "test-paid.ts": gatedSkill("test.paid", { price: "0.003" }), "test-overrun.ts": overrunSkill("test.overrun") });
  service = await testService(["--plugins", folder, "--payments", "on", "--x402", JSON.stringify(fx.config())], { pollingIntervalMs: 20 });
  // The official EVM buyer signs validBefore = now + maxTimeoutSeconds: 60 s cannot cover a 100 s job.
  const crashFolder = jobSkillFolder({ "test-crash.ts": crashSkill });
  prepaid = await testService(["--plugins", crashFolder, "--payments", "on", "--x402", JSON.stringify(fx.config({ maxTimeoutSeconds: 60 }))], { pollingIntervalMs: 20 });
}, 60_000);

afterAll(async () => {
  service?.close();
  prepaid?.close();
  await fx?.stop();
});

type Json = Record<string, unknown>;
const buyerFetch = (target: TestService) =>
  fx.officialFetch(fx.buyer.key, undefined, ((input: RequestInfo | URL, init?: RequestInit) => target.handle(new Request(input, init), "127.0.0.1")) as typeof fetch);
const submit = (target: TestService, body: unknown, headers: Record<string, string> = {}) =>
  buyerFetch(target)("http://127.0.0.1:8402/v1/jobs", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const poll = async (target: TestService, id: string) => {
  const res = await target.request(`/v1/jobs/${id}`);
  return { res, body: (await res.json()) as Json };
};
const waitFor = (target: TestService, id: string, status: string) =>
  until(async () => {
    const polled = await poll(target, id);
    return polled.body.status === status ? polled : undefined;
  }, 10_000, `job to be ${status}`);
const balance = () => fx.token.balanceOf(fx.buyer.address);

describe("paid async jobs (official buyer, anvil)", () => {
  it("quotes the named skill's exact price in the 402", async () => {
    const res = await service.request("/v1/jobs", { method: "POST", json: { skill: "test.paid", tag: "q" } });
    expect(res.status).toBe(402);
    const body = (await res.json()) as { accepts: { amount: string }[] };
    expect(body.accepts[0]?.amount).toBe("3000");
  });

  it("settles only when the job completes and releases the result after; a replay with the same Idempotency-Key charges nothing", async () => {
    const before = await balance();
    const headers = { "Idempotency-Key": "paid-job-1" };
    const res = await submit(service, { skill: "test.paid", tag: "paid1" }, headers);
    expect(res.status).toBe(202);
    expect(res.headers.get("payment-response")).toBeNull();
    const id = String(((await res.json()) as Json).job_id);

    const running = await waitFor(service, id, "running");
    expect(running.body.result).toBeUndefined();
    expect(await balance()).toBe(before); // verified, not settled

    gates.open("paid1");
    const done = await waitFor(service, id, "completed");
    expect(done.body.result).toEqual({ tag: "paid1", done: true });
    expect(done.body.payment).toMatchObject({ settlement: "on_completion", settled: true });
    const receipt = decodePaymentResponse(done.res.headers.get("payment-response") ?? "");
    if (!receipt.ok) throw new Error(receipt.reason);
    expect(receipt.value).toMatchObject({ success: true, amount: "3000", payer: fx.buyer.address });
    expect(await balance()).toBe(before - 3000n);

    const replay = await submit(service, { skill: "test.paid", tag: "paid1" }, headers);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replay.json()) as Json).job_id).toBe(id);
    expect(await balance()).toBe(before - 3000n);
    expect(service.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs WHERE skill = 'test.paid'").get()?.n).toBe(1);
  }, 30_000);

  it("decodes the payment once for a paid submission under an Idempotency-Key (the key's match and the call read the same decoded value) @see issue 39", async () => {
    // The edge reads PAYMENT-SIGNATURE once and carries the payment decoded (x402/presented-payment.ts);
    // nothing after it holds the header text, so a second decode would have to read the header again.
    // Counted on every Headers object the server makes while it handles the request (it re-wraps the request).
    let reads = 0;
    let inside = false;
    const get = Headers.prototype.get;
    const counted = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      inside = true;
      try {
        return await service.handle(request, "127.0.0.1");
      } finally {
        inside = false;
      }
    }) as typeof fetch;
    Headers.prototype.get = function (this: Headers, name: string) {
      const value = get.call(this, name);
      if (inside && value !== null && name.toLowerCase() === "payment-signature") reads++;
      return value;
    };
    const res = await fx
      .officialFetch(fx.buyer.key, undefined, counted)("http://127.0.0.1:8402/v1/jobs", {
        method: "POST",
        headers: { "content-type": "application/json", "Idempotency-Key": "decoded-once" },
        body: JSON.stringify({ skill: "test.paid", tag: "once" }),
      })
      .finally(() => {
        Headers.prototype.get = get;
      });
    expect(res.status).toBe(202);
    expect(reads).toBe(1);
    gates.open("once");
    await waitFor(service, String(((await res.json()) as Json).job_id), "completed");
  });

  it("settles nothing for a job that overruns its timeout (expired)", async () => {
    const before = await balance();
    const res = await submit(service, { skill: "test.overrun" });
    expect(res.status).toBe(202);
    const id = String(((await res.json()) as Json).job_id);
    const expired = await waitFor(service, id, "expired");
    expect(expired.body.payment).toMatchObject({ settled: false });
    expect(expired.res.headers.get("payment-response")).toBeNull();
    expect(await balance()).toBe(before);
    const state = service.store.db.query<{ state: string }, []>("SELECT state FROM payment_receipts WHERE operation_id = 'test.overrun'").get();
    expect(state?.state).toBe("unused");
  }, 30_000);

  it("settles at acceptance when the authorization cannot outlive the job, and records a refund due when the job fails by our fault", async () => {
    const before = await balance();
    const res = await submit(prepaid, { skill: "test.crash" });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as Json;
    expect(accepted.settlement).toMatchObject({ settlement: "at_acceptance", settled: true });
    expect(res.headers.get("payment-response")).not.toBeNull();
    expect(await balance()).toBe(before - 2000n);
    const id = String(accepted.job_id);
    const failed = await waitFor(prepaid, id, "failed");
    expect(failed.body.error).toMatchObject({ code: "INTERNAL_ERROR" });
    expect(JSON.stringify(failed.body.error)).not.toContain("disk full");
    expect(failed.body.payment).toMatchObject({ refund: { state: "due" } });
    const due = await prepaid.store.jobs.listRefunds("due");
    expect(due.map((r) => r.id)).toEqual([id]);
    expect(due[0]).toMatchObject({ payer: fx.buyer.address.toLowerCase(), priceMicros: 2000, settleMode: "acceptance" });
    expect(String((failed.body.error as Json).message)).not.toContain("nothing was charged");
  }, 30_000);
});
