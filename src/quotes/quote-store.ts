/**
 * @module quotes/quote-store — the quotes table: every job.quote answer, so an accepted quote can
 * be run once at its price and the same goal and budget asked again returns the same quote.
 * A run claims its quote with one conditional UPDATE, so of two runs racing only one gets it.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Database, Migration } from "../store/db.ts";
import type { QuoteCounter, QuoteDecision, QuoteReason, QuoteVerdict } from "./decide.ts";
import { quoteLifetimeMs, repeatWindowMs, type TierId } from "./tiers.ts";

export const quoteMigrations: Migration[] = [
  {
    id: "quotes_0001_table",
    sql: `CREATE TABLE quotes (
      id TEXT PRIMARY KEY,
      goal_hash TEXT NOT NULL,
      goal TEXT NOT NULL,
      budget_micros INTEGER NOT NULL,
      decision TEXT NOT NULL,
      reason TEXT NOT NULL,
      note TEXT NOT NULL,
      tier TEXT,
      run_skill TEXT,
      price_micros INTEGER,
      scope TEXT NOT NULL,
      allowed_hosts TEXT NOT NULL,
      counter TEXT,
      next_request TEXT,
      payer TEXT,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      used_at TEXT,
      job_id TEXT,
      claim_request TEXT
    );
    CREATE INDEX quotes_repeat ON quotes (goal_hash, budget_micros, created_at);
    CREATE INDEX quotes_created ON quotes (created_at);`,
  },
];

/** A stored quote: the decision as the buyer got it, with what a run needs and who may run it. */
export interface QuoteRow extends QuoteDecision {
  readonly id: string;
  readonly goalHash: string;
  /** The normalised goal a run executes. */
  readonly goal: string;
  readonly budgetMicros: number;
  /** Who paid for the quote (lowercase for EVM); only that payer may run it. */
  readonly payer: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly usedAt: string | null;
  readonly jobId: string | null;
}

export interface RawQuote {
  id: string;
  goal_hash: string;
  goal: string;
  budget_micros: number;
  decision: string;
  reason: string;
  note: string;
  tier: string | null;
  run_skill: string | null;
  price_micros: number | null;
  scope: string;
  allowed_hosts: string;
  counter: string | null;
  next_request: string | null;
  payer: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  job_id: string | null;
  claim_request: string | null;
}

export type ClaimOutcome =
  | { readonly kind: "claimed" }
  | { readonly kind: "refused"; readonly why: "missing" | "not_accepted" | "wrong_tier" | "expired" | "used" | "wrong_payer"; readonly quote?: QuoteRow };

/**
 * The quotes table family (issue 28): one asynchronous interface, two engines — SQLite here (the
 * default) and PostgreSQL (quote-pg.ts) for instances sharing one database.
 */
export interface QuoteStore {
  get(id: string): Promise<QuoteRow | undefined>;
  /** The latest answer to the same goal and budget by the same payer within 24 h (no_model answers are asked again). */
  findRepeat(goalHash: string, budgetMicros: number, payer: string | null, now: Date): Promise<QuoteRow | undefined>;
  insert(decision: QuoteDecision, ask: QuoteAsk, now: Date): Promise<QuoteRow>;
  /** Why `payer` may not run quote `id` at `runSkill` now, or undefined when it may (checked before the 402). */
  refusal(id: string, runSkill: string, payer: string | null, now: Date): Promise<ClaimOutcome | undefined>;
  /** Marks the quote used by `jobId`, only if it is still runnable by this payer: one caller wins a race. */
  claim(id: string, runSkill: string, payer: string | null, jobId: string, requestId: string, now: Date): Promise<ClaimOutcome>;
  /** Gives the quote back after a run that was not accepted or failed without charge (only the claiming request's). */
  release(id: string, requestId: string): Promise<boolean>;
  recent(limit: number): Promise<QuoteRow[]>;
  purge(before: Date): Promise<number>;
}

export interface QuoteAsk {
  readonly goal: string;
  readonly goalHash: string;
  readonly budgetMicros: number;
  readonly payer: string | null;
}

export function newQuoteId(): string {
  return `quote_${randomBytes(16).toString("hex")}`;
}

/** Whitespace-insensitive form of a goal (lines kept: logs and code keep their shape). */
export function normaliseGoal(goal: string): string {
  return goal
    .normalize("NFC")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

export function goalHashOf(normalised: string): string {
  return createHash("sha256").update(normalised.toLowerCase()).digest("hex");
}

/** EVM addresses compare lowercase; Algorand addresses are case-sensitive base32 and kept. */
export function payerKey(payer: string | undefined | null): string | null {
  if (!payer) return null;
  return /^0x[0-9a-fA-F]{40}$/.test(payer) ? payer.toLowerCase() : payer;
}

/** A stored row as either engine reads it back (timestamps as ISO strings). */
export function quoteOfRow(r: RawQuote): QuoteRow {
  return {
    id: r.id,
    goalHash: r.goal_hash,
    goal: r.goal,
    budgetMicros: r.budget_micros,
    decision: r.decision as QuoteVerdict,
    reason: r.reason as QuoteReason,
    note: r.note,
    tier: r.tier as TierId | null,
    runSkill: r.run_skill,
    priceMicros: r.price_micros,
    scope: r.scope,
    allowedHosts: JSON.parse(r.allowed_hosts) as string[],
    counter: r.counter ? (JSON.parse(r.counter) as QuoteCounter) : null,
    nextRequest: r.next_request ? (JSON.parse(r.next_request) as Record<string, unknown>) : null,
    payer: r.payer,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    jobId: r.job_id,
  };
}

/** Why `payer` may not run `quote` at `runSkill` now (undefined: it may). */
export function refusalOf(quote: QuoteRow | undefined, runSkill: string, payer: string | null, now: Date): ClaimOutcome | undefined {
  if (!quote) return { kind: "refused", why: "missing" };
  if (quote.decision !== "accept") return { kind: "refused", why: "not_accepted", quote };
  if (quote.runSkill !== runSkill) return { kind: "refused", why: "wrong_tier", quote };
  if (Date.parse(quote.expiresAt) <= now.getTime()) return { kind: "refused", why: "expired", quote };
  if (quote.usedAt !== null) return { kind: "refused", why: "used", quote };
  if (quote.payer !== null && payer !== null && quote.payer !== payer) return { kind: "refused", why: "wrong_payer", quote };
  return undefined;
}

/** After a claim that changed nothing: why (an unpaid run cannot take a bound quote). */
export function lostClaim(quote: QuoteRow | undefined, runSkill: string, payer: string | null, now: Date): ClaimOutcome {
  return refusalOf(quote, runSkill, payer, now) ?? { kind: "refused", why: payer === null ? "wrong_payer" : "used" };
}

/** The columns of a new quote row, the same for either engine. */
export function newQuoteColumns(decision: QuoteDecision, ask: QuoteAsk, now: Date) {
  return {
    id: newQuoteId(),
    goal_hash: ask.goalHash,
    goal: ask.goal,
    budget_micros: ask.budgetMicros,
    decision: decision.decision,
    reason: decision.reason,
    note: decision.note,
    tier: decision.tier,
    run_skill: decision.runSkill,
    price_micros: decision.priceMicros,
    scope: decision.scope,
    allowed_hosts: JSON.stringify(decision.allowedHosts),
    counter: decision.counter ? JSON.stringify(decision.counter) : null,
    next_request: decision.nextRequest ? JSON.stringify(decision.nextRequest) : null,
    payer: ask.payer,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + quoteLifetimeMs).toISOString(),
  };
}

export function createQuoteStore(db: Database): QuoteStore {
  const get = db.prepare<RawQuote, [string]>("SELECT * FROM quotes WHERE id = ?");
  const repeat = db.prepare<RawQuote, [string, number, string, string | null]>(
    "SELECT * FROM quotes WHERE goal_hash = ? AND budget_micros = ? AND created_at > ? AND payer IS ? AND reason != 'no_model' ORDER BY created_at DESC, rowid DESC LIMIT 1",
  );
  const insert = db.prepare(
    `INSERT INTO quotes (id, goal_hash, goal, budget_micros, decision, reason, note, tier, run_skill, price_micros, scope, allowed_hosts, counter, next_request, payer, created_at, expires_at)
     VALUES ($id, $goal_hash, $goal, $budget_micros, $decision, $reason, $note, $tier, $run_skill, $price_micros, $scope, $allowed_hosts, $counter, $next_request, $payer, $created_at, $expires_at)`,
  );
  const claim = db.prepare<unknown, [string, string, string, string, string, string, string | null]>(
    `UPDATE quotes SET used_at = ?, job_id = ?, claim_request = ?
     WHERE id = ? AND decision = 'accept' AND run_skill = ? AND used_at IS NULL AND expires_at > ? AND (payer IS NULL OR payer = ?)`,
  );
  const release = db.prepare<unknown, [string, string]>("UPDATE quotes SET used_at = NULL, job_id = NULL, claim_request = NULL WHERE id = ? AND claim_request = ?");
  const recent = db.prepare<RawQuote, [number]>("SELECT * FROM quotes ORDER BY created_at DESC, rowid DESC LIMIT ?");
  const purge = db.prepare<unknown, [string]>("DELETE FROM quotes WHERE created_at < ?");

  const byId = (id: string) => {
    const raw = get.get(id);
    return raw ? quoteOfRow(raw) : undefined;
  };

  return {
    get: async (id) => byId(id),
    async findRepeat(goalHash, budgetMicros, payer, now) {
      const raw = repeat.get(goalHash, budgetMicros, new Date(now.getTime() - repeatWindowMs).toISOString(), payer);
      return raw ? quoteOfRow(raw) : undefined;
    },
    async insert(decision, ask, now) {
      const row = newQuoteColumns(decision, ask, now);
      insert.run(row);
      return byId(row.id)!;
    },
    refusal: async (id, runSkill, payer, now) => refusalOf(byId(id), runSkill, payer, now),
    async claim(id, runSkill, payer, jobId, requestId, now) {
      // A bound quote needs the same payer; an unpaid run (payments off) cannot take a bound quote.
      const changed = claim.run(now.toISOString(), jobId, requestId, id, runSkill, now.toISOString(), payer).changes;
      if (changed === 1) return { kind: "claimed" };
      return lostClaim(byId(id), runSkill, payer, now);
    },
    release: async (id, requestId) => release.run(id, requestId).changes === 1,
    recent: async (limit) => recent.all(limit).map(quoteOfRow),
    purge: async (before) => purge.run(before.toISOString()).changes,
  };
}
