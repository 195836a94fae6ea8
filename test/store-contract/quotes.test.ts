/**
 * One contract for the quotes store on SQLite and on a real PostgreSQL (issue 28): the same answers
 * from either engine, and of many runs racing for one accepted quote across two instances, exactly
 * one claims it.
 */
import { describe, expect, it } from "bun:test";
import { decideQuote, type QuoteDecision } from "../../src/quotes/decide.ts";
import { createPgQuoteStore, quotePgMigrations } from "../../src/quotes/quote-pg.ts";
import { createQuoteStore, goalHashOf, normaliseGoal, type QuoteStore, quoteMigrations } from "../../src/quotes/quote-store.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";

const engines = storeEngines<QuoteStore>("quotes", { sqliteMigrations: quoteMigrations, sqlite: createQuoteStore, pgMigrations: quotePgMigrations, pg: createPgQuoteStore });

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const goal = normaliseGoal("Extract the opening hours table from https://example.com/contact as JSON");
const ask = (payer: string | null = null) => ({ goal, goalHash: goalHashOf(goal), budgetMicros: 1_000_000, payer });
const accepted = decideQuote(goal, 1_000_000, { priceOf: () => undefined, modelConfigured: true });
const rejected: QuoteDecision = { ...accepted, decision: "reject", reason: "too_large", runSkill: null, tier: null, priceMicros: null };
const payerA = "0xabc0000000000000000000000000000000000001";
const payerB = "0xabc0000000000000000000000000000000000002";

for (const engine of engines) {
  describe.skipIf(engine.skip)(`quotes on ${engine.name}`, () => {
    it(
      "stores a quote and reads it back the same from the other instance; repeats only for the same payer and within 24 h",
      withInstances(engine, async ({ one, two }) => {
        expect(accepted.decision).toBe("accept");
        const q = await one.insert({ ...accepted, counter: { scope: "s", tier: "t1", runSkill: "job.run.t1", priceMicros: 5 } as never, nextRequest: { a: 1 } }, ask(payerA), at(0));
        expect(q).toMatchObject({ goal, budgetMicros: 1_000_000, payer: payerA, createdAt: at(0).toISOString(), expiresAt: new Date(at(0).getTime() + 3_600_000).toISOString(), usedAt: null, jobId: null, nextRequest: { a: 1 } });
        expect(await two.get(q.id)).toEqual(q);
        expect(await two.findRepeat(goalHashOf(goal), 1_000_000, payerA, at(60))).toEqual(q);
        expect(await two.findRepeat(goalHashOf(goal), 1_000_000, payerB, at(60))).toBeUndefined();
        expect(await two.findRepeat(goalHashOf(goal), 1_000_000, null, at(60))).toBeUndefined();
        expect(await two.findRepeat(goalHashOf(goal), 2_000_000, payerA, at(60))).toBeUndefined();
        expect(await two.findRepeat(goalHashOf(goal), 1_000_000, payerA, new Date(at(0).getTime() + 24 * 3_600_000 + 1000))).toBeUndefined();
        const later = await two.insert(accepted, ask(payerA), at(0));
        expect((await one.findRepeat(goalHashOf(goal), 1_000_000, payerA, at(60)))?.id).toBe(later.id);
        const unbound = await one.insert(accepted, ask(null), at(1));
        expect((await one.findRepeat(goalHashOf(goal), 1_000_000, null, at(60)))?.id).toBe(unbound.id);
        expect((await two.recent(2)).map((r) => r.id)).toEqual([unbound.id, later.id]);
        expect(await one.get("quote_missing")).toBeUndefined();
      }),
      30_000,
    );

    it(
      "says why a quote may not run: missing, not accepted, wrong tier, expired, used, wrong payer",
      withInstances(engine, async ({ one, two }) => {
        const q = await one.insert(accepted, ask(payerA), at(0));
        const no = await one.insert(rejected, ask(payerA), at(0));
        expect(await two.refusal("quote_none", "job.run.t1", payerA, at(1))).toEqual({ kind: "refused", why: "missing" });
        expect(await two.refusal(no.id, "job.run.t1", payerA, at(1))).toMatchObject({ why: "not_accepted" });
        expect(await two.refusal(q.id, "job.run.t2", payerA, at(1))).toMatchObject({ why: "wrong_tier" });
        expect(await two.refusal(q.id, "job.run.t1", payerB, at(1))).toMatchObject({ why: "wrong_payer" });
        expect(await two.refusal(q.id, "job.run.t1", payerA, new Date(at(0).getTime() + 3_600_000))).toMatchObject({ why: "expired" });
        expect(await two.refusal(q.id, "job.run.t1", payerA, at(1))).toBeUndefined();
        expect(await one.claim(q.id, "job.run.t1", payerA, "job_1", "req_1", new Date(at(0).getTime() + 3_600_000))).toMatchObject({ why: "expired" });
        expect(await one.claim(q.id, "job.run.t1", null, "job_1", "req_1", at(1))).toMatchObject({ why: "wrong_payer" });
        expect(await one.claim(q.id, "job.run.t1", payerA, "job_1", "req_1", at(1))).toEqual({ kind: "claimed" });
        expect(await two.refusal(q.id, "job.run.t1", payerA, at(2))).toMatchObject({ why: "used" });
        expect(await two.get(q.id)).toMatchObject({ usedAt: at(1).toISOString(), jobId: "job_1" });
      }),
      30_000,
    );

    it(
      "gives a claimed quote back only to the claiming request",
      withInstances(engine, async ({ one, two }) => {
        const q = await one.insert(accepted, ask(null), at(0));
        expect(await two.claim(q.id, "job.run.t1", payerB, "job_b", "req_b", at(1))).toEqual({ kind: "claimed" });
        expect(await one.claim(q.id, "job.run.t1", payerA, "job_a", "req_a", at(1))).toMatchObject({ why: "used" });
        expect(await one.release(q.id, "req_a")).toBe(false);
        expect(await one.release(q.id, "req_b")).toBe(true);
        expect(await two.get(q.id)).toMatchObject({ usedAt: null, jobId: null });
        expect(await one.claim(q.id, "job.run.t1", payerA, "job_a", "req_a", at(2))).toEqual({ kind: "claimed" });
      }),
      30_000,
    );

    it(
      "gives one accepted quote to exactly one of 20 runs racing across the two instances",
      withInstances(engine, async ({ one, two }) => {
        const q = await one.insert(accepted, ask(payerA), at(0));
        const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 ? one : two).claim(q.id, "job.run.t1", payerA, `job_${n}`, `req_${n}`, at(1))));
        expect(outcomes.filter((o) => o.kind === "claimed")).toHaveLength(1);
        expect(outcomes.filter((o) => o.kind === "refused" && o.why === "used")).toHaveLength(19);
        const winner = outcomes.findIndex((o) => o.kind === "claimed");
        expect((await two.get(q.id))?.jobId).toBe(`job_${winner}`);
      }),
      30_000,
    );

    it(
      "purges quotes created before a time, counting them",
      withInstances(engine, async ({ one, two }) => {
        const old = await one.insert(accepted, ask(), at(0));
        const kept = await one.insert(accepted, ask(), at(10));
        expect(await two.purge(at(5))).toBe(1);
        expect(await one.get(old.id)).toBeUndefined();
        expect(await one.get(kept.id)).toBeDefined();
        expect(await two.purge(at(5))).toBe(0);
      }),
      30_000,
    );
  });
}
