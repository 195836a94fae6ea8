/** The deterministic quote decision (issue 17 rules 2–6), table-driven over goals. */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { decideQuote, type QuoteDecision } from "../../src/quotes/decide.ts";
import { readGoalSignals } from "../../src/quotes/goal-signals.ts";
import { normaliseGoal } from "../../src/quotes/quote-store.ts";

// Prices as the spec's catalogue lists them (spec job-worker §4.1).
const installed: Record<string, number> = { "web.brief": 60_000, "code.fix_from_log": 80_000, "grok.prompt": 250_000, "host.report": 10_000 };
const priceOf = (skill: string) => installed[skill];
const decide = (goal: string, budget: number, modelConfigured = true): QuoteDecision =>
  decideQuote(normaliseGoal(goal), Math.round(budget * 1_000_000), { priceOf, modelConfigured });

const urls = (n: number, host = "example.com") => Array.from({ length: n }, (_, i) => `https://${host}/page/${i + 1}`).join("\n");

const nodeLog = `> build
> tsc -p .

src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.
npm ERR! code ELIFECYCLE
npm ERR! errno 2
Error: Process completed with exit code 2.`;

const jsTrace = `TypeError: Cannot read properties of undefined (reading 'id')
    at handler (/srv/app/src/routes.js:41:17)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;

interface Case {
  readonly name: string;
  readonly goal: string;
  readonly budget: number;
  readonly expect: Partial<Pick<QuoteDecision, "decision" | "reason" | "tier" | "runSkill" | "priceMicros" | "scope">> & { counter?: unknown; next?: unknown };
}

const cases: Case[] = [
  { name: "a URL brief maps to web.brief", goal: "Summarise https://example.com/blog/launch for me", budget: 2, expect: { decision: "map_to_existing", reason: "existing_skill", runSkill: "web.brief", priceMicros: 60_000, next: { skill: "web.brief", url: "https://example.com/blog/launch" } } },
  { name: "'what does this page say' maps to web.brief", goal: "What does this page say? https://example.org/post", budget: 1, expect: { decision: "map_to_existing", runSkill: "web.brief" } },
  { name: "a log maps to code.fix_from_log", goal: nodeLog, budget: 1, expect: { decision: "map_to_existing", runSkill: "code.fix_from_log", priceMicros: 80_000 } },
  { name: "a stack trace maps to code.fix_from_log", goal: `Why does this fail?\n${jsTrace}`, budget: 1, expect: { decision: "map_to_existing", runSkill: "code.fix_from_log" } },
  { name: "a question needing no fetch maps to grok.prompt", goal: "What is the difference between a mutex and a semaphore?", budget: 1, expect: { decision: "map_to_existing", runSkill: "grok.prompt", priceMicros: 250_000 } },
  { name: "our host's status maps to host.report", goal: "What is the disk and load status of your host?", budget: 1, expect: { decision: "map_to_existing", runSkill: "host.report", priceMicros: 10_000, next: { skill: "host.report" } } },
  {
    name: "a whole-site crawl is rejected with one narrower counter",
    goal: "Crawl the whole site https://docs.example.com and list every API endpoint",
    budget: 100,
    expect: { decision: "reject", reason: "unbounded", counter: { tier: "t5", run_skill: "job.run.t5", price: "5.00" } },
  },
  { name: "monitoring is rejected: one snapshot, no monitoring", goal: "Monitor https://example.com/pricing every day and tell me when the price changes", budget: 50, expect: { decision: "reject", reason: "unbounded", counter: { scope: "one snapshot, no monitoring", tier: "t1", price: "0.50" } } },
  { name: "30 URLs are rejected: the first 15 URLs listed", goal: `Extract the title and author of each page:\n${urls(30)}`, budget: 50, expect: { decision: "reject", reason: "unbounded", counter: { scope: "the first 15 URLs listed", tier: "t5", run_skill: "job.run.t5", price: "5.00" } } },
  { name: "creating accounts is rejected", goal: "Create 5 accounts on https://forum.example.com and post a greeting", budget: 20, expect: { decision: "reject", reason: "unbounded" } },
  { name: "following links recursively is rejected", goal: "Start at https://example.com/index and follow every link recursively, listing broken ones", budget: 20, expect: { decision: "reject", reason: "unbounded" } },
  { name: "one page, extraction, fits t1", goal: "Extract the opening hours table from https://example.com/contact as JSON", budget: 1, expect: { decision: "accept", reason: "fits_tier", tier: "t1", runSkill: "job.run.t1", priceMicros: 500_000, scope: "the goal as written", counter: null } },
  { name: "three sources fit t2, accepted at the tier price, not the budget", goal: `Extract the release dates listed on these pages:\n${urls(3)}`, budget: 4, expect: { decision: "accept", tier: "t2", priceMicros: 1_000_000 } },
  { name: "a comparison table fits t3", goal: `Compare the plans on https://a.example.com/pricing, https://b.example.com/pricing and https://c.example.com/pricing in a table`, budget: 3, expect: { decision: "accept", tier: "t3", priceMicros: 2_000_000 } },
  { name: "a structured report of 10 sources fits t5", goal: `Write a structured report on the vendors behind these pages:\n${urls(10)}`, budget: 5, expect: { decision: "accept", tier: "t5", priceMicros: 5_000_000 } },
  {
    name: "budget below price with a narrower fit: accept the narrower scope, counter = full scope",
    goal: `Extract the release dates listed on these pages:\n${urls(3)}`,
    budget: 0.6,
    expect: { decision: "accept", reason: "narrower_scope", tier: "t1", priceMicros: 500_000, scope: "the first source listed only", counter: { scope: "the goal as written", tier: "t2", run_skill: "job.run.t2", price: "1.00" } },
  },
  {
    name: "budget below price without a narrower fit: reject budget_below_price with the full-scope counter",
    goal: `Review this function for bugs:\n\`\`\`\n${Array.from({ length: 60 }, (_, i) => `const v${i} = compute(${i});`).join("\n")}\n\`\`\``,
    budget: 0.6,
    expect: { decision: "reject", reason: "budget_below_price", counter: { scope: "the goal as written", tier: "t2", price: "1.00" } },
  },
  { name: "a budget below the smallest tier is rejected", goal: "Extract the opening hours table from https://example.com/contact as JSON", budget: 0.3, expect: { decision: "reject", reason: "budget_below_price", counter: { tier: "t1", price: "0.50" } } },
];

describe("decideQuote", () => {
  for (const c of cases) {
    it(c.name, () => {
      const d = decide(c.goal, c.budget);
      const { counter, next, ...fields } = c.expect;
      expect(d).toMatchObject(fields);
      if (counter !== undefined) {
        if (counter === null) expect(d.counter).toBeNull();
        else expect(d.counter).toMatchObject(counter as object);
      }
      if (next !== undefined) expect(d.nextRequest).toEqual(next as Record<string, unknown>);
      // Deterministic: the same goal and budget decide the same way.
      expect(decide(c.goal, c.budget)).toEqual(d);
    });
  }

  it("rejects an accept with no_model when no model is configured; maps and rejects still work", () => {
    expect(decide("Extract the opening hours table from https://example.com/contact as JSON", 1, false)).toMatchObject({ decision: "reject", reason: "no_model", runSkill: null, priceMicros: null });
    expect(decide("Summarise https://example.com/blog/launch", 1, false)).toMatchObject({ decision: "map_to_existing", runSkill: "web.brief" });
    expect(decide(`Extract titles:\n${urls(30)}`, 50, false)).toMatchObject({ decision: "reject", reason: "unbounded" });
  });

  it("maps only to skills this server sells", () => {
    const d = decideQuote(normaliseGoal("Summarise https://example.com/blog/launch"), 1_000_000, { priceOf: () => undefined, modelConfigured: true });
    expect(d).toMatchObject({ decision: "accept", tier: "t1" });
  });

  it("a model's estimate raises the tier and never lowers it", () => {
    const goal = normaliseGoal("Extract the opening hours table from https://example.com/contact as JSON");
    expect(decideQuote(goal, 10_000_000, { priceOf, modelConfigured: true, minTier: "t3" })).toMatchObject({ tier: "t3", priceMicros: 2_000_000 });
    const t3 = normaliseGoal(`Compare the plans on https://a.example.com/p, https://b.example.com/p in a table`);
    expect(decideQuote(t3, 10_000_000, { priceOf, modelConfigured: true, minTier: "t1" })).toMatchObject({ tier: "t3" });
  });

  it("the run may fetch only the hosts the goal named, and only those in a narrowed scope", () => {
    const full = decide(`Extract the dates on https://a.example.com/x, https://b.example.org/y and https://c.example.net/z`, 4);
    expect([...full.allowedHosts].sort()).toEqual(["a.example.com", "b.example.org", "c.example.net", "www.a.example.com", "www.b.example.org", "www.c.example.net"]);
    const narrow = decide(`Extract the dates on https://a.example.com/x, https://b.example.org/y and https://c.example.net/z`, 0.5);
    expect(narrow).toMatchObject({ decision: "accept", reason: "narrower_scope" });
    expect([...narrow.allowedHosts].sort()).toEqual(["a.example.com", "www.a.example.com"]);
    expect(decide("Extract the opening hours table from https://example.com/contact as JSON", 1).allowedHosts).toContain("example.com");
  });
});

describe("readGoalSignals", () => {
  it("counts URLs and named sites as sources, not file names", () => {
    const s = readGoalSignals("Compare stripe.com and paddle.com pricing; see notes in package.json and index.ts, and https://stripe.com/pricing.");
    expect(s.urls).toEqual(["https://stripe.com/pricing"]);
    expect(s.sources).toBe(2);
    expect(s.hosts).toEqual(["stripe.com", "paddle.com"]);
  });

  it("reads words asked for and code size", () => {
    expect(readGoalSignals("Write 1,200 words on https://example.com/x").words).toBe(1200);
    expect(readGoalSignals("a 4-page report from example.com").words).toBe(2000);
    expect(readGoalSignals("```\na\nb\nc\n```").codeLines).toBe(3);
  });
});

describe("log-shaped goals (the log reducer's patterns)", () => {
  const dir = new URL("../fixtures/logs/", import.meta.url).pathname;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".log") && f !== "unknown.log")) {
    it(`${file} maps to code.fix_from_log`, () => {
      const log = readFileSync(dir + file, "utf8").slice(-3_500);
      expect(decide(log, 5)).toMatchObject({ decision: "map_to_existing", runSkill: "code.fix_from_log" });
    });
  }

  it("prose that mentions errors is not a log", () => {
    for (const goal of ["Why do compilers report errors at the end of a build? Explain briefly.", "Compare the error handling of https://a.example.com/docs and https://b.example.com/docs"]) {
      expect(readGoalSignals(goal).logShaped).toBe(false);
    }
  });
});
