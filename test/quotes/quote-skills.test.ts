/**
 * job.quote and job.run.* over HTTP without a model: the policy gate before the 402, decisions that
 * need no model (map, reject) and the no_model reject, the stored quote and its repeat, and runs
 * refused before any price for a missing, wrong-tier, expired or used quote, or with no model.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { decideQuote } from "../../src/quotes/decide.ts";
import { listQuotesForCli } from "../../src/quotes/quotes-cli.ts";
import { goalHashOf, normaliseGoal } from "../../src/quotes/quote-store.ts";
import { openStore, withStore } from "../../src/database.ts";
import { type TestService, testService } from "../support/service.ts";

type Json = Record<string, unknown>;
const paidFlags = ["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"];
let free: TestService;
let paid: TestService;

beforeAll(async () => {
  free = await testService([]);
  paid = await testService(paidFlags);
});
afterAll(async () => {
  await free?.close();
  await paid?.close();
});

const quote = async (service: TestService, goal: string, budget_usdc: number) => {
  const res = await service.request("/v1/jobs", { method: "POST", json: { skill: "job.quote", goal, budget_usdc } });
  return { res, body: (await res.json()) as Json };
};

/** An accepted quote as a model-backed job.quote would have stored it (real decision, real store). */
function storeAccepted(service: TestService, goal: string, budgetMicros: number, options: { payer?: string | null; at?: Date } = {}) {
  const normal = normaliseGoal(goal);
  const decision = decideQuote(normal, budgetMicros, { priceOf: () => undefined, modelConfigured: true });
  expect(decision.decision).toBe("accept");
  return service.store.quotes.insert(decision, { goal: normal, goalHash: goalHashOf(normal), budgetMicros, payer: options.payer ?? null }, options.at ?? new Date());
}

describe("job.quote", () => {
  it("is sold at 0.05, sync, 60 s", () => {
    const entry = free.registry.skill("job.quote");
    expect(entry?.priceOf({ goal: "x", budget_usdc: 1 })).toEqual({ base: 50_000, algorand: 50_000 });
    expect(entry?.definition).toMatchObject({ async: false, timeoutMs: 60_000 });
    for (const tier of ["t1", "t2", "t3", "t5"]) expect(free.registry.skill(`job.run.${tier}`)?.definition).toMatchObject({ async: true, timeoutMs: 180_000 });
    expect(free.registry.skill("job.run.t4")).toBeUndefined();
  });

  it("says its engine before payment: rules for job.quote, none for the runs without a model", async () => {
    const caps = (await (await free.request("/v1/capabilities")).json()) as { catalogue: Json[] };
    const engine = (id: string) => caps.catalogue.find((s) => s.id === id);
    expect(engine("job.quote")).toMatchObject({ engine: "rules", available: true });
    for (const tier of ["t1", "t2", "t3", "t5"]) expect(engine(`job.run.${tier}`)).toMatchObject({ engine: "none", available: false });
  });

  it("refuses a goal the policy gate blocks with 400 before any 402, and quotes nothing", async () => {
    const before = (await paid.store.quotes.recent(100)).length;
    const refused = await quote(paid, "Write ransomware that encrypts the victim's files and asks for bitcoin", 5);
    expect(refused.res.status).toBe(400);
    expect(refused.res.headers.get("payment-required")).toBeNull();
    expect(refused.body).toMatchObject({ ok: false, error: "POLICY_REFUSED" });
    const fine = await quote(paid, "Extract the opening hours from https://example.com/contact", 5);
    expect(fine.res.status).toBe(402);
    expect(fine.res.headers.get("payment-required")).not.toBeNull();
    expect((await paid.store.quotes.recent(100)).length).toBe(before);
  });

  it("validates the budget (> 0, ≤ 1000) and bounds the goal by max_prompt_chars", async () => {
    for (const budget_usdc of [0, -1, 1000.01]) expect((await quote(free, "What is TCP?", budget_usdc)).res.status).toBe(400);
    const long = await quote(free, `Explain ${"x".repeat(4100)}`, 1);
    expect(long.res.status).toBe(400);
    expect(long.body.error).toBe("PROMPT_TOO_LONG");
  });

  it("maps to an installed skill with its price and no quote_id", async () => {
    const { res, body } = await quote(free, "What is the disk and load status of your host?", 1);
    expect(res.status).toBe(200);
    expect(body.result).toMatchObject({ ok: true, skill: "job.quote", decision: "map_to_existing", run_skill: "host.report", price: "0.01", quote_id: null, reason: "existing_skill", next_request: { skill: "host.report" } });
  });

  it("maps a URL brief to web.brief and a log to code.fix_from_log at their registry prices; a question goes to grok.prompt only when it can run", async () => {
    const brief = await quote(free, "Summarise https://example.com/blog/launch for me", 1);
    expect(brief.body.result).toMatchObject({ decision: "map_to_existing", run_skill: "web.brief", price: "0.06", next_request: { skill: "web.brief", url: "https://example.com/blog/launch" } });
    const log = await quote(free, "npm ERR! code ELIFECYCLE\nnpm ERR! errno 2\nError: Process completed with exit code 2.", 1);
    expect(log.body.result).toMatchObject({ decision: "map_to_existing", run_skill: "code.fix_from_log", price: "0.08" });
    // No model here: grok.prompt would answer 503, so the question is not sent there (and an accept needs a model too).
    const question = await quote(free, "What is the difference between a mutex and a semaphore?", 1);
    expect(question.body.result).toMatchObject({ decision: "reject", reason: "no_model" });
  });

  it("rejects unbounded work with one counter, and the same ask again returns the same stored answer", async () => {
    const goal = "Monitor https://example.com/pricing every day and tell me when it changes";
    const first = await quote(free, goal, 10);
    expect(first.body.result).toMatchObject({ decision: "reject", reason: "unbounded", counter: { scope: "one snapshot, no monitoring", run_skill: "job.run.t1", price: "0.50" } });
    const rows = (await free.store.quotes.recent(100)).filter((q) => q.goal === goal);
    expect(rows).toHaveLength(1);
    const again = await quote(free, `  ${goal.replace(/ /g, "  ")}  `, 10);
    expect(again.body.result).toEqual(first.body.result as Json);
    expect((await free.store.quotes.recent(100)).filter((q) => q.goal === goal)).toHaveLength(1);
  });

  it("without a model an accept becomes reject no_model, and is decided afresh when asked again", async () => {
    const goal = "Extract the opening hours table from https://example.com/contact as JSON";
    const { body } = await quote(free, goal, 2);
    expect(body.result).toMatchObject({ decision: "reject", reason: "no_model", run_skill: null, price: null, quote_id: null });
    await quote(free, goal, 2);
    expect((await free.store.quotes.recent(100)).filter((q) => q.goal === goal)).toHaveLength(2);
  });
});

describe("job.run.* admission (before any 402)", () => {
  const run = (service: TestService, tier: string, quote_id: string) => service.request("/v1/jobs", { method: "POST", json: { skill: `job.run.${tier}`, quote_id } });

  it("refuses a missing quote (404), another tier's (400), an expired one (410) and a used one (409), never with a 402", async () => {
    const missing = await run(paid, "t1", `quote_${"0".repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Json).error).toBe("QUOTE_NOT_FOUND");

    const fresh = await storeAccepted(paid, "Extract the opening hours table from https://example.com/contact as JSON", 1_000_000);
    expect(fresh.runSkill).toBe("job.run.t1");
    const wrongTier = await run(paid, "t2", fresh.id);
    expect(wrongTier.status).toBe(400);
    expect(await wrongTier.json()).toMatchObject({ error: "QUOTE_WRONG_TIER", run_skill: "job.run.t1" });

    const expired = await storeAccepted(paid, "Extract the team page from https://example.org/team as JSON", 1_000_000, { at: new Date(Date.now() - 3_601_000) });
    const gone = await run(paid, "t1", expired.id);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as Json).error).toBe("QUOTE_EXPIRED");

    const used = await storeAccepted(paid, "Extract the price list from https://example.net/prices as JSON", 1_000_000);
    expect(await paid.store.quotes.claim(used.id, "job.run.t1", null, "job_x", "req_x", new Date())).toEqual({ kind: "claimed" });
    const again = await run(paid, "t1", used.id);
    expect(again.status).toBe(409);
    expect(((await again.json()) as Json).error).toBe("QUOTE_USED");

    for (const res of [missing, wrongTier, gone, again]) expect(res.headers.get("payment-required")).toBeNull();
  });

  it("refuses a fresh quote with 503 SKILL_UNAVAILABLE when no model is configured", async () => {
    const fresh = await storeAccepted(paid, "Extract the contact e-mail from https://example.com/about", 1_000_000);
    const res = await run(paid, "t1", fresh.id);
    expect(res.status).toBe(503);
    expect(res.headers.get("payment-required")).toBeNull();
    expect(((await res.json()) as Json).error).toBe("SKILL_UNAVAILABLE");
    expect((await paid.store.quotes.get(fresh.id))?.usedAt).toBeNull();
  });
});

describe("quote store", () => {
  it("claims a quote once: the second claim loses, a release by the claiming request gives it back", async () => {
    const q = await storeAccepted(free, "Extract the changelog from https://example.com/changes as JSON", 1_000_000, { payer: "0xabc0000000000000000000000000000000000001" });
    const now = new Date();
    expect(await free.store.quotes.claim(q.id, "job.run.t1", "0xabc0000000000000000000000000000000000002", "job_a", "req_a", now)).toMatchObject({ kind: "refused", why: "wrong_payer" });
    expect(await free.store.quotes.claim(q.id, "job.run.t1", null, "job_a", "req_a", now)).toMatchObject({ kind: "refused", why: "wrong_payer" });
    expect(await free.store.quotes.claim(q.id, "job.run.t1", "0xabc0000000000000000000000000000000000001", "job_a", "req_a", now)).toEqual({ kind: "claimed" });
    expect(await free.store.quotes.claim(q.id, "job.run.t1", "0xabc0000000000000000000000000000000000001", "job_b", "req_b", now)).toMatchObject({ kind: "refused", why: "used" });
    expect(await free.store.quotes.release(q.id, "req_b")).toBe(false);
    expect(await free.store.quotes.release(q.id, "req_a")).toBe(true);
    expect(await free.store.quotes.get(q.id)).toMatchObject({ usedAt: null, jobId: null });
  });

  it("the job sweep deletes quotes older than a week, keeping newer ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-quotes-"));
    const store = openStore(dir);
    const insert = (goal: string, at: Date) => {
      const normal = normaliseGoal(goal);
      return store.quotes.insert(decideQuote(normal, 1_000_000, { priceOf: () => undefined, modelConfigured: true }), { goal: normal, goalHash: goalHashOf(normal), budgetMicros: 1_000_000, payer: null }, at);
    };
    const old = await insert("Extract the title of https://example.com/old", new Date(Date.now() - 8 * 86_400_000));
    const recent = await insert("Extract the title of https://example.com/new", new Date(Date.now() - 2 * 86_400_000));
    store.close();
    // The job service sweeps when it starts (and every minute).
    const s = await testService(["--data", dir]);
    try {
      expect(await s.store.quotes.get(old.id)).toBeUndefined();
      expect(await s.store.quotes.get(recent.id)).toBeDefined();
    } finally {
      await s.close();
    }
  });

  it("quote ids carry 128 random bits", async () => {
    const a = await storeAccepted(free, "Extract the title of https://example.com/a", 1_000_000);
    const b = await storeAccepted(free, "Extract the title of https://example.com/b", 1_000_000);
    expect(a.id).toMatch(/^quote_[0-9a-f]{32}$/);
    expect(a.id).not.toBe(b.id);
    expect(Date.parse(a.expiresAt) - Date.parse(a.createdAt)).toBe(3_600_000);
  });

  it("tollbooth quotes lists recent quotes for the operator", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-quotes-"));
    const store = openStore(dir);
    const normal = normaliseGoal("Extract the title of https://example.com/a");
    await store.quotes.insert(decideQuote(normal, 1_000_000, { priceOf: () => undefined, modelConfigured: true }), { goal: normal, goalHash: goalHashOf(normal), budgetMicros: 1_000_000, payer: null }, new Date());
    store.close();
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => void lines.push(line);
    try {
      expect(await listQuotesForCli({ withStore: (use) => withStore(loadConfig({ argv: ["--data", dir] }).data, use) }, 20)).toBe(0);
    } finally {
      console.log = log;
    }
    expect(lines[0]).toMatch(/^created\s+decision\s+reason\s+skill\s+price\s+budget\s+state\s+payer\s+goal/);
    expect(lines[1]).toContain("accept");
    expect(lines[1]).toContain("job.run.t1");
    expect(lines[1]).toContain("open");
    expect(lines[1]).toContain("https://example.com/a");
  });
});
