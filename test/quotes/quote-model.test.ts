/**
 * Custom work against the loopback Chat Completions server and a loopback site (payments off):
 * an accepted quote, its run within the tier's limits on the named hosts only, the one-use quote,
 * the repeat, a run a limit ends (partial), a failed run that gives its quote back, and the model
 * review that may raise a price or refuse on policy but never lowers a price.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { type ChatServer, requestText, startChatServer } from "../support/chat-server.ts";
import { type TestService, testService } from "../support/service.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { until } from "../jobs/job-skills.ts";
import { type ModelScript, isReview, scriptedModel } from "./model-support.ts";

type Json = Record<string, any>;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

function site(): SiteServer {
  const s = startSiteServer();
  cleanups.push(() => s.stop());
  s.set("/hours", page("Opening hours", "<p>Monday to Friday, 9:00 to 17:00. Closed on public holidays and at weekends.</p>"));
  for (let i = 1; i <= 6; i++) s.set(`/p${i}`, page(`Page ${i}`, `<p>Text of page number ${i}, long enough to be read as content by the extractor.</p>`));
  return s;
}

async function setUp(script: ModelScript | ((web: SiteServer) => ModelScript)): Promise<{ s: TestService; web: SiteServer; chat: ChatServer; script: ModelScript }> {
  const web = site();
  const current = typeof script === "function" ? script(web) : script;
  const chat = startChatServer(scriptedModel(current));
  cleanups.push(() => chat.stop());
  const s = await testService(["--unsafe-allow-loopback-targets", "--rate-limit-per-min", "10000", "--llm-base-url", chat.baseUrl, "--llm-api-key", "sk-test", "--llm-model", "test-model", "--llm-max-retries", "0"]);
  cleanups.push(() => s.close());
  return { s, web, chat, script: current };
}

async function post(s: TestService, body: Json): Promise<{ status: number; body: Json }> {
  const res = await s.request("/v1/jobs", { method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as Json };
}

const finished = (s: TestService, id: string) =>
  until(
    async () => {
      const body = (await (await s.request(`/v1/jobs/${id}`)).json()) as Json;
      return ["completed", "failed", "expired"].includes(body.status) ? body : undefined;
    },
    15_000,
    `job ${id} to finish`,
  );

const fine = { tier: "t1", policy_problem: null };

describe("job.quote with a model", () => {
  it("accepts, runs once within the tier's limits on the named hosts only, and re-asking returns the same quote", async () => {
    const { s, web, chat } = await setUp((w) => ({ review: fine, reads: [w.url("/hours")], offHost: w.url("/p1").replace("127.0.0.1", "localhost"), answer: "Open Monday to Friday, 9:00-17:00." }));
    const goal = `Extract the opening hours table from ${web.url("/hours")} as JSON`;
    const quoted = await post(s, { skill: "job.quote", goal, budget_usdc: 2 });
    expect(quoted.status).toBe(200);
    const q = quoted.body.result;
    expect(q).toMatchObject({ decision: "accept", run_skill: "job.run.t1", price: "0.50", reason: "fits_tier", counter: null, limits: { max_steps: 8, max_fetches: 3, max_model_usd: 0.15, timeout_sec: 180 } });
    expect(q.quote_id).toMatch(/^quote_[0-9a-f]{32}$/);
    expect(chat.requests.filter(isReview)).toHaveLength(1);
    const caps = (await (await s.request("/v1/capabilities")).json()) as { catalogue: Json[] };
    expect(caps.catalogue.find((c) => c.id === "job.run.t1")).toMatchObject({ available: true, engine: "model", model: "test-model" });
    expect(caps.catalogue.find((c) => c.id === "job.quote")).toMatchObject({ available: true, engine: "rules+model", model: "test-model" });

    const again = await post(s, { skill: "job.quote", goal: `${goal}  `, budget_usdc: 2 });
    expect(again.body.result).toEqual(q);
    expect(chat.requests.filter(isReview)).toHaveLength(1);

    const accepted = await post(s, { skill: "job.run.t1", quote_id: q.quote_id });
    expect(accepted.status).toBe(202);
    const job = await finished(s, accepted.body.job_id);
    expect(job.status).toBe("completed");
    expect(job.result).toMatchObject({ quote_id: q.quote_id, tier: "t1", answer: "Open Monday to Friday, 9:00-17:00.", partial: false, sources: [{ url: web.url("/hours") }] });
    expect(job.result.usage.steps).toBeLessThanOrEqual(8);
    expect(job.result.usage.tool_calls).toBeLessThanOrEqual(3);
    // The planner's try at a host the goal never named was refused; the named page was read once.
    expect(web.hits("/p1")).toBe(0);
    expect(web.hits("/hours")).toBe(1);
    const toolResults = chat.requests.flatMap((r) => r.body.messages.filter((m) => m.role === "tool").map((m) => String(m.content)));
    expect(toolResults.some((t) => t.includes("HOST_NOT_ALLOWED"))).toBe(true);
    expect(await s.store.quotes.get(q.quote_id)).toMatchObject({ jobId: accepted.body.job_id });
    // The run was given the stored goal, the plan-first rule and the named host only.
    const firstRun = chat.requests.find((r) => !isReview(r))!;
    expect(requestText(firstRun)).toContain(goal);
    expect(requestText(firstRun)).toContain("Plan first");
    expect(requestText(firstRun)).toContain("Only these hosts may be read: 127.0.0.1");
    expect(requestText(firstRun)).not.toContain("localhost,");

    const second = await post(s, { skill: "job.run.t1", quote_id: q.quote_id });
    expect(second.status).toBe(409);
    expect(second.body.error).toBe("QUOTE_USED");

    // Re-asking after the run: the same terms under a fresh id, decided without another review.
    const after = await post(s, { skill: "job.quote", goal, budget_usdc: 2 });
    expect(after.body.result).toMatchObject({ decision: "accept", run_skill: "job.run.t1", price: "0.50", scope: q.scope });
    expect(after.body.result.quote_id).not.toBe(q.quote_id);
    expect(chat.requests.filter(isReview)).toHaveLength(1);
  }, 30_000);

  it("sends a question needing no fetch to grok.prompt when a model can answer it", async () => {
    const { s } = await setUp({ review: fine, reads: [], answer: "x" });
    const res = await post(s, { skill: "job.quote", goal: "What is the difference between a mutex and a semaphore?", budget_usdc: 1 });
    expect(res.body.result).toMatchObject({ decision: "map_to_existing", run_skill: "grok.prompt", price: "0.25", quote_id: null, next_request: { skill: "grok.prompt", prompt: "What is the difference between a mutex and a semaphore?" } });
  }, 30_000);

  it("says partial when a limit ended the run, and stays within the tier's fetches and steps", async () => {
    const { s, web } = await setUp((w) => ({ review: fine, reads: [1, 2, 3, 4, 5, 6].map((i) => w.url(`/p${i}`)), answer: "What the pages read say." }));
    // One source named (the site's first page); the planner then asks for more pages on that host than t1 allows.
    const quoted = await post(s, { skill: "job.quote", goal: `Extract the page numbers from ${web.url("/p1")} as a list`, budget_usdc: 1 });
    expect(quoted.body.result).toMatchObject({ decision: "accept", run_skill: "job.run.t1" });
    const accepted = await post(s, { skill: "job.run.t1", quote_id: quoted.body.result.quote_id });
    const job = await finished(s, accepted.body.job_id);
    expect(job.status).toBe("completed");
    expect(job.result.partial).toBe(true);
    expect(typeof job.result.partial_reason).toBe("string");
    expect(job.result.usage.tool_calls).toBeLessThanOrEqual(3);
    expect(job.result.usage.steps).toBeLessThanOrEqual(8);
    const read = [1, 2, 3, 4, 5, 6].reduce((n, i) => n + web.hits(`/p${i}`), 0);
    expect(read).toBeLessThanOrEqual(3);
  }, 30_000);

  it("a run that fails charges nothing and gives its quote back", async () => {
    const { s, web, script } = await setUp((w) => ({ review: fine, reads: [w.url("/hours")], answer: { status: 500 } }));
    const quoted = await post(s, { skill: "job.quote", goal: `Extract the opening hours table from ${web.url("/hours")} as JSON`, budget_usdc: 1 });
    const id = quoted.body.result.quote_id;
    const accepted = await post(s, { skill: "job.run.t1", quote_id: id });
    const job = await finished(s, accepted.body.job_id);
    expect(job.status).toBe("failed");
    expect(await s.store.quotes.get(id)).toMatchObject({ usedAt: null, jobId: null });
    script.answer = "Open Monday to Friday.";
    const retry = await post(s, { skill: "job.run.t1", quote_id: id });
    expect(retry.status).toBe(202);
    expect((await finished(s, retry.body.job_id)).status).toBe("completed");
  }, 30_000);

  it("the model's review may raise the tier, never lower it, and its raise is held to the budget", async () => {
    const { s, web, script } = await setUp({ review: { tier: "t3", policy_problem: null }, reads: [], answer: "x" });
    const raised = await post(s, { skill: "job.quote", goal: `Extract the opening hours table from ${web.url("/hours")} as JSON`, budget_usdc: 3 });
    expect(raised.body.result).toMatchObject({ decision: "accept", run_skill: "job.run.t3", price: "2.00" });
    const held = await post(s, { skill: "job.quote", goal: `Extract the opening hours table from ${web.url("/hours")} as JSON`, budget_usdc: 1 });
    expect(held.body.result).toMatchObject({ decision: "reject", reason: "budget_below_price", counter: { run_skill: "job.run.t3", price: "2.00" } });
    script.review = { tier: "t1", policy_problem: null };
    const compare = `Compare the plans on ${web.url("/p1")}, ${web.url("/p2")} and ${web.url("/p3")} in a table`;
    expect((await post(s, { skill: "job.quote", goal: compare, budget_usdc: 5 })).body.result).toMatchObject({ run_skill: "job.run.t3", price: "2.00" });
  }, 30_000);

  it("the review can refuse on policy (400, nothing stored), and a failed review leaves the rules' estimate", async () => {
    const { s, web, script } = await setUp({ review: { tier: "t1", policy_problem: "asks for other people's private data" }, reads: [], answer: "x" });
    const goal = `Extract the opening hours table from ${web.url("/hours")} as JSON`;
    const refused = await post(s, { skill: "job.quote", goal, budget_usdc: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("POLICY_REFUSED");
    expect(await s.store.quotes.recent(10)).toHaveLength(0);
    script.review = { status: 500 };
    const fallback = await post(s, { skill: "job.quote", goal, budget_usdc: 1 });
    expect(fallback.body.result).toMatchObject({ decision: "accept", run_skill: "job.run.t1", price: "0.50" });
  }, 30_000);
});
