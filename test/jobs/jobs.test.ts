/**
 * The job worker over HTTP with payments off: sync and async submission, polling, statuses,
 * timeouts, concurrency, queue capacity, pause, idempotency, rate limits, prompt limits, expiry.
 * @see issue 6
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { settlementText } from "../../src/jobs/job-settlement.ts";
import { encodePaymentResponse } from "../../src/x402/headers.ts";
import { type TestService, testService } from "../support/service.ts";
import { type GateControl, gatedSkill, installGates, jobSkillFolder, overrunSkill, until } from "./job-skills.ts";

let gates: GateControl;
let folder: string;
const services: TestService[] = [];

beforeAll(() => {
  gates = installGates();
  folder = jobSkillFolder({
    "test-wait.ts": gatedSkill("test.wait"),
    "test-json.ts": gatedSkill("test.json", { jsonOnly: true }),
    "test-sync.ts": gatedSkill("test.sync", { async: false }),
    "test-fail.ts": gatedSkill("test.fail", { fail: true }),
    "test-overrun.ts": overrunSkill("test.overrun"),
  });
});
afterEach(() => gates.reset());
afterAll(() => {
  for (const s of services) s.close();
});

async function start(argv: string[] = []): Promise<TestService> {
  const service = await testService(["--plugins", folder, "--rate-limit-per-min", "10000", ...argv]);
  services.push(service);
  return service;
}

type Json = Record<string, unknown>;
const post = (service: TestService, json: unknown, headers: Record<string, string> = {}, path = "/v1/jobs") =>
  service.request(path, { method: "POST", json, headers });
const poll = async (service: TestService, id: string) => {
  const res = await service.request(`/v1/jobs/${id}`);
  return { res, body: (await res.json()) as Json };
};
const waitForStatus = (service: TestService, id: string, status: string) =>
  until(async () => {
    const { body } = await poll(service, id);
    return body.status === status ? body : undefined;
  }, 5_000, `job ${id} to be ${status}`);

describe("POST /v1/jobs", () => {
  it("answers a sync skill with 200 {ok, skill, result} in the same response", async () => {
    const service = await start();
    const res = await post(service, { skill: "capabilities" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ ok: true, skill: "capabilities", result: { ok: true, open_for_work: true } });
    const result = body.result as { skills: string[]; price_job: string };
    expect(result.skills).toEqual(expect.arrayContaining(["capabilities", "host.report", "test.wait"]));
    // job.run.* (0.50-5.00) are bought with a quote and left out (spec §4.1 rule 1).
    expect(result.price_job).toBe(String(Math.max(...service.registry.skills.filter((s) => !s.id.startsWith("job.run.")).map((s) => s.priceOf({} as never).base ?? 0)) / 1e6));
  });

  it("accepts an async skill with 202, job_id, Location and Retry-After, and polls it to completed", async () => {
    const service = await start();
    const res = await post(service, { skill: "test.wait", tag: "one" });
    expect(res.status).toBe(202);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ ok: true, skill: "test.wait", status: "queued" });
    const id = String(body.job_id);
    expect(id).toMatch(/^job_[0-9a-f]{32}$/);
    expect(res.headers.get("location")).toBe(`http://127.0.0.1:8402/v1/jobs/${id}`);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);

    const running = await waitForStatus(service, id, "running");
    expect(running.result).toBeUndefined();
    const polled = await poll(service, id);
    expect(polled.res.headers.get("retry-after")).not.toBeNull();
    expect(polled.res.headers.get("cache-control")).toBe("no-store");

    gates.open("one");
    const done = await waitForStatus(service, id, "completed");
    expect(done).toMatchObject({ id, job_id: id, skill: "test.wait", result: { tag: "one", done: true } });
    expect(done.started_at).toBeString();
    expect(done.finished_at).toBeString();
    expect((await poll(service, id)).res.headers.get("retry-after")).toBeNull();
  });

  it("answers a completed job's PAYMENT-RESPONSE with the same bytes whether its row holds the settlement's JSON or, as rows before issue 39 do, the header itself @see issue 39", async () => {
    const service = await start();
    const res = await post(service, { skill: "test.wait", tag: "stored" });
    const id = String(((await res.json()) as Json).job_id);
    gates.open("stored");
    await waitForStatus(service, id, "completed");
    const settlement = { success: true, transaction: "0xfeed", network: "eip155:8453", payer: "0xabc", amount: "1000" };
    const header = encodePaymentResponse(settlement);
    for (const stored of [header, settlementText(settlement)]) {
      service.store.db.query("UPDATE jobs SET payment_response = ?, settled_at = created_at WHERE id = ?").run(stored, id);
      const polled = await poll(service, id);
      expect(polled.res.headers.get("payment-response")).toBe(header);
    }
  });

  it("takes the skill from the path form /v1/jobs/<skill>, and refuses a body that names another", async () => {
    const service = await start();
    const res = await post(service, {}, {}, "/v1/jobs/capabilities");
    expect(res.status).toBe(200);
    const clash = await post(service, { skill: "host.report" }, {}, "/v1/jobs/capabilities");
    expect(clash.status).toBe(400);
  });

  it("lists the known skills for an unknown one", async () => {
    const service = await start();
    const res = await post(service, { skill: "nope" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body.error).toBe("UNKNOWN_SKILL");
    expect(body.skills).toEqual(expect.arrayContaining(["capabilities", "host.report", "test.wait"]));
  });

  it("returns a json_only skill's result as a JSON-encoded string, also when the caller asks with json_only", async () => {
    const service = await start();
    gates.open("j");
    const flagged = String(((await (await post(service, { skill: "test.json", tag: "j" })).json()) as Json).job_id);
    expect((await waitForStatus(service, flagged, "completed")).result).toBe(JSON.stringify({ tag: "j", done: true }));
    const asked = String(((await (await post(service, { skill: "test.wait", tag: "j", json_only: true })).json()) as Json).job_id);
    expect((await waitForStatus(service, asked, "completed")).result).toBe(JSON.stringify({ tag: "j", done: true }));
  });

  it("marks a job past its timeout expired, aborted, with no result", async () => {
    const service = await start();
    const id = String(((await (await post(service, { skill: "test.overrun" })).json()) as Json).job_id);
    const expired = await waitForStatus(service, id, "expired");
    expect(expired.error).toMatchObject({ code: "JOB_TIMEOUT" });
    expect(expired.result).toBeUndefined();
    expect(String((expired.error as Json).message)).toContain("Nothing was charged");
  });

  it("marks a job whose skill throws failed with the error code", async () => {
    const service = await start();
    gates.open("f");
    const id = String(((await (await post(service, { skill: "test.fail", tag: "f" })).json()) as Json).job_id);
    const failed = await waitForStatus(service, id, "failed");
    expect(failed.error).toMatchObject({ code: "SOURCE_UNREACHABLE", message: "the upstream is down" });
  });

  it("answers 404 for unknown and malformed job ids", async () => {
    const service = await start();
    for (const id of ["job_00000000000000000000000000000000", "nope", "job_XYZ"]) {
      const res = await service.request(`/v1/jobs/${id}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as Json).error).toBe("JOB_NOT_FOUND");
    }
  });

  it("deletes results past their expiry: the poll answers 404 and the row keeps no result", async () => {
    const service = await start();
    gates.open("e");
    const id = String(((await (await post(service, { skill: "test.wait", tag: "e" })).json()) as Json).job_id);
    await waitForStatus(service, id, "completed");
    await service.store.jobs.purge(new Date(Date.now() + 25 * 3_600_000), new Date(0));
    expect((await service.request(`/v1/jobs/${id}`)).status).toBe(404);
    const row = service.store.db.query<{ result: string | null; input: string | null }, [string]>("SELECT result, input FROM jobs WHERE id = ?").get(id);
    expect(row).toEqual({ result: null, input: null });
  });
});

describe("queue", () => {
  it("runs at most max_concurrent_jobs at once, in order, and starts the next when one finishes", async () => {
    const service = await start(["--max-concurrent-jobs", "2"]);
    const ids: string[] = [];
    for (const tag of ["q1", "q2", "q3"]) ids.push(String(((await (await post(service, { skill: "test.wait", tag })).json()) as Json).job_id));
    await until(() => (gates.started("q1") && gates.started("q2") ? true : undefined));
    expect(gates.started("q3")).toBe(false);
    expect((await poll(service, ids[2]!)).body.status).toBe("queued");
    gates.open("q1");
    await until(() => (gates.started("q3") ? true : undefined), 5_000, "q3 to start");
    gates.open("q2");
    gates.open("q3");
    for (const id of ids) await waitForStatus(service, id, "completed");
  });

  it("answers 503 QUEUE_FULL with Retry-After when the queue is full, and creates no job", async () => {
    const service = await start(["--max-concurrent-jobs", "1", "--max-queued-jobs", "1"]);
    expect((await post(service, { skill: "test.wait", tag: "full1" })).status).toBe(202);
    await until(() => (gates.started("full1") ? true : undefined));
    expect((await post(service, { skill: "test.wait", tag: "full2" })).status).toBe(202);
    const refused = await post(service, { skill: "test.wait", tag: "full3" });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as Json).error).toBe("QUEUE_FULL");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(service.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs").get()?.n).toBe(2);
    gates.open("full1");
    gates.open("full2");
  });
});

describe("manager and limits", () => {
  it("refuses paid submissions with 503 and the pause reason while free endpoints keep working", async () => {
    const service = await start();
    await service.store.settings.pause("maintenance window");
    const res = await post(service, { skill: "test.wait", tag: "p" });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: "SERVICE_PAUSED", pause_reason: "maintenance window" });
    expect((await post(service, { skill: "capabilities" })).status).toBe(503);
    expect((await service.request("/v1/capabilities")).status).toBe(200);
    expect(((await (await service.request("/v1/trust")).json()) as Json).open_for_work).toBe(false);
    expect(service.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs").get()?.n).toBe(0);
    await service.store.settings.resume();
  });

  it("refuses a prompt over max_prompt_chars with 400 before running anything", async () => {
    const service = await start(["--max-prompt-chars", "10"]);
    const res = await post(service, { skill: "test.wait", tag: "long", prompt: "x".repeat(11) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "PROMPT_TOO_LONG", max_prompt_chars: 10 });
    expect(gates.started("long")).toBe(false);
    expect((await post(service, { skill: "test.wait", tag: "ok", prompt: "x".repeat(10) })).status).toBe(202);
    gates.open("ok");
  });

  it("limits calls per minute per caller with 429, Retry-After and RateLimit-* headers, running nothing", async () => {
    const service = await testService(["--plugins", folder, "--rate-limit-per-min", "2"]);
    services.push(service);
    const first = await post(service, { skill: "capabilities" });
    expect(first.headers.get("ratelimit-limit")).toBe("2");
    expect(first.headers.get("ratelimit-remaining")).toBe("1");
    expect((await post(service, { skill: "capabilities" })).status).toBe(200);
    const refused = await post(service, { skill: "test.wait", tag: "rl" });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as Json).error).toBe("RATE_LIMITED");
    const retry = Number(refused.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-reset")).toBe(String(retry));
    expect(refused.headers.get("ratelimit-policy")).toBe("2;w=60");
    expect(gates.started("rl")).toBe(false);
    expect((await service.store.jobs.countByStatus("queued")) + (await service.store.jobs.countByStatus("running"))).toBe(0);
    // the limit is per caller: another address still gets through
    const other = await service.handle(
      new Request("http://127.0.0.1:8402/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: '{"skill":"capabilities"}' }),
      "10.9.9.9",
    );
    expect(other.status).toBe(200);
  });
});

describe("Idempotency-Key", () => {
  it("replays the same job for the same key and body, with Idempotent-Replayed: true and no second job", async () => {
    const service = await start();
    const headers = { "Idempotency-Key": "key-replay-1" };
    const first = await post(service, { skill: "test.wait", tag: "idem" }, headers);
    expect(first.status).toBe(202);
    const firstBody = (await first.json()) as Json;
    // key order does not matter; the path form is the same request
    const again = await post(service, { tag: "idem" }, headers, "/v1/jobs/test.wait");
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as Json).job_id).toBe(firstBody.job_id);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(service.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs").get()?.n).toBe(1);
    gates.open("idem");
  });

  it("replays a sync skill's response", async () => {
    const service = await start();
    gates.open("s");
    const headers = { "Idempotency-Key": "key-sync-1" };
    const first = await post(service, { skill: "test.sync", tag: "s" }, headers);
    expect(first.status).toBe(200);
    const again = await post(service, { skill: "test.sync", tag: "s" }, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect(service.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM jobs").get()?.n).toBe(1);
  });

  it("refuses the same key with a different body with 422", async () => {
    const service = await start();
    const headers = { "Idempotency-Key": "key-mismatch-1" };
    expect((await post(service, { skill: "test.wait", tag: "m1" }, headers)).status).toBe(202);
    const res = await post(service, { skill: "test.wait", tag: "m2" }, headers);
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).error).toBe("IDEMPOTENCY_KEY_REUSED");
    gates.open("m1");
  });

  it("answers 409 while the first request with the key is still being accepted", async () => {
    const service = await start();
    const headers = { "Idempotency-Key": "key-inflight-1" };
    const first = post(service, { skill: "test.sync", tag: "slow" }, headers);
    await until(() => (gates.started("slow") ? true : undefined));
    const second = await post(service, { skill: "test.sync", tag: "slow" }, headers);
    expect(second.status).toBe(409);
    expect(((await second.json()) as Json).error).toBe("IDEMPOTENCY_IN_PROGRESS");
    gates.open("slow");
    expect((await first).status).toBe(200);
  });

  it("scopes keys to the caller and frees a key whose request was refused", async () => {
    const service = await start();
    const headers = { "Idempotency-Key": "key-scope-1" };
    expect((await post(service, { skill: "test.wait", tag: "sc" }, headers)).status).toBe(202);
    const fromElsewhere = await service.handle(
      new Request("http://127.0.0.1:8402/v1/jobs", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ skill: "test.wait", tag: "other" }),
      }),
      "10.1.2.3",
    );
    expect(fromElsewhere.status).toBe(202);
    expect(fromElsewhere.headers.get("idempotent-replayed")).toBeNull();
    // a refused request (400) does not keep the key
    const invalid = await post(service, { skill: "test.wait" }, { "Idempotency-Key": "key-scope-2" });
    expect(invalid.status).toBe(400);
    expect((await post(service, { skill: "test.wait", tag: "sc" }, { "Idempotency-Key": "key-scope-2" })).status).toBe(202);
    gates.open("sc");
    gates.open("other");
  });

  it("refuses a malformed key with 400", async () => {
    const service = await start();
    const res = await post(service, { skill: "capabilities" }, { "Idempotency-Key": "x".repeat(256) });
    expect(res.status).toBe(400);
  });
});
