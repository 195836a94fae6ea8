/**
 * @module quotes/decide — the deterministic quote decision (issue 17, rules 2–6; the policy gate,
 * rule 1, runs before it in the skill's admit). Same goal, budget and registry: same answer.
 *
 *   log / our host / one URL + "summarise" / a question needing no fetch → map_to_existing
 *   crawling, monitoring, > 20 URLs, link following, accounts          → reject unbounded + counter
 *   tier by sources, words, code, comparison, report (a model may raise it, never lower)
 *   price ≤ budget → accept · a narrower scope fits the budget → accept it, counter = full scope
 *   otherwise reject budget_below_price · accept without a model → reject no_model
 */
import { type GoalSignals, maxUrls, readGoalSignals, type UnboundedKind } from "./goal-signals.ts";
import { largestTier, priceText, type Tier, type TierId, tierById, tiers } from "./tiers.ts";

export type QuoteVerdict = "accept" | "map_to_existing" | "reject";
export type QuoteReason = "fits_tier" | "narrower_scope" | "existing_skill" | "unbounded" | "too_large" | "budget_below_price" | "no_model";

/** The one counter offer: a scope, and the tier and price it would run at. */
export interface QuoteCounter {
  readonly scope: string;
  readonly tier: TierId;
  readonly run_skill: string;
  readonly price: string;
}

export interface QuoteDecision {
  readonly decision: QuoteVerdict;
  readonly reason: QuoteReason;
  /** One sentence for the buyer. */
  readonly note: string;
  /** The tier an accept runs at (also kept for a no_model reject, for the operator). */
  readonly tier: TierId | null;
  /** accept: the job.run.* skill; map_to_existing: the skill to buy instead. */
  readonly runSkill: string | null;
  readonly priceMicros: number | null;
  /** What will be done (accept), or what was asked (otherwise). */
  readonly scope: string;
  readonly allowedHosts: readonly string[];
  readonly counter: QuoteCounter | null;
  /** map_to_existing: the body to send to POST /v1/jobs. */
  readonly nextRequest: Record<string, unknown> | null;
}

export interface DecideOptions {
  /** Price of an installed skill in micro-dollars, undefined when this server does not sell it. */
  readonly priceOf: (skill: string) => number | undefined;
  readonly modelConfigured: boolean;
  /** A floor from the model's estimate: the tier is never below it. */
  readonly minTier?: TierId;
}

/** What a goal needs, as the tier table measures it. */
interface Needs {
  readonly sources: number;
  readonly words: number;
  readonly codeLines: number;
  readonly comparison: boolean;
  readonly report: boolean;
}

const fullScope = "the goal as written";

function fits(tier: Tier, needs: Needs): boolean {
  return needs.sources <= tier.maxSources && needs.words <= tier.maxWords && needs.codeLines <= tier.maxCodeLines && (!needs.comparison || tier.comparison) && (!needs.report || tier.report);
}

/** The cheapest tier that fits, at or above the floor; undefined when none does. */
export function estimateTier(needs: Needs, floor?: TierId): Tier | undefined {
  const from = floor ? tiers.findIndex((t) => t.id === floor) : 0;
  return tiers.slice(from).find((t) => fits(t, needs));
}

function needsOf(s: GoalSignals): Needs {
  return { sources: s.sources, words: s.words, codeLines: s.codeLines, comparison: s.comparison, report: s.report };
}

function counterOf(tier: Tier, scope: string): QuoteCounter {
  return { scope, tier: tier.id, run_skill: tier.runSkill, price: priceText(tier.priceMicros) };
}

/** The goal cut down to fit `tier`, with the words that say how; undefined when the cut cannot be made (code is kept whole). */
function narrowTo(tier: Tier, needs: Needs): { needs: Needs; scope: string } | undefined {
  if (needs.codeLines > tier.maxCodeLines) return undefined;
  const parts: string[] = [];
  let { sources, words, comparison, report } = needs;
  if (sources > tier.maxSources) {
    sources = tier.maxSources;
    parts.push(tier.maxSources === 1 ? "the first source listed only" : `the first ${tier.maxSources} sources listed`);
  }
  if (words > tier.maxWords) {
    words = tier.maxWords;
    parts.push(`an answer of at most ${tier.maxWords} words`);
  }
  if (report && !tier.report) {
    report = false;
    parts.push("a short summary instead of a structured report");
  }
  if (comparison && !tier.comparison) {
    comparison = false;
    parts.push("a comparison in prose, no table");
  }
  if (parts.length === 0) return undefined;
  return { needs: { sources, words, codeLines: needs.codeLines, comparison, report }, scope: parts.join("; ") };
}

const unboundedScopes: Record<UnboundedKind, string> = {
  too_many_urls: `the first ${largestTier.maxSources} URLs listed`,
  crawl: `the pages named by URL only (at most ${largestTier.maxSources}), read once, no crawling`,
  follow_links: "the pages named by URL only, no link following",
  recurring: "one snapshot, no monitoring",
  state: "public pages only, no accounts, logins or state kept between jobs",
};

const unboundedNotes: Record<UnboundedKind, string> = {
  too_many_urls: `more than ${maxUrls} URLs`,
  crawl: "crawling a whole site",
  follow_links: "following links recursively",
  recurring: "monitoring or repeating work",
  state: "accounts or state beyond one job",
};

/** Hosts a run may fetch: those the goal named (`www.` and bare forms both), limited to the sources in scope. */
function hostsInScope(s: GoalSignals, sources: number): string[] {
  const named = s.hosts.slice(0, Math.max(sources, 0));
  const out = new Set<string>();
  for (const h of named) {
    out.add(h);
    if (/[a-z]/.test(h.split(".").pop() ?? "")) out.add(h.startsWith("www.") ? h.slice(4) : `www.${h}`);
  }
  return [...out];
}

function mapTo(skill: string, priceMicros: number, body: Record<string, unknown>, note: string): QuoteDecision {
  return { decision: "map_to_existing", reason: "existing_skill", note, tier: null, runSkill: skill, priceMicros, scope: fullScope, allowedHosts: [], counter: null, nextRequest: { skill, ...body } };
}

function mapping(goal: string, s: GoalSignals, priceOf: DecideOptions["priceOf"]): QuoteDecision | undefined {
  const offer = (skill: string, body: Record<string, unknown>, note: string) => {
    const price = priceOf(skill);
    return price === undefined ? undefined : mapTo(skill, price, body, note);
  };
  if (s.logShaped) {
    const m = offer("code.fix_from_log", { log: goal }, "This is a log: code.fix_from_log diagnoses it and proposes the fix.");
    if (m) return m;
  }
  if (s.aboutOurHost) {
    const m = offer("host.report", {}, "host.report tells this server's disk, load and memory.");
    if (m) return m;
  }
  if (s.unbounded.length > 0) return undefined;
  const simple = s.words <= tierById("t1").maxWords && !s.report && !s.comparison && s.codeLines <= tierById("t1").maxCodeLines;
  if (simple && s.urls.length === 1 && s.hosts.length === 1 && s.summary) {
    const m = offer("web.brief", { url: s.urls[0] }, "One page to brief: web.brief reads it and answers with 8 bullets and caveats.");
    if (m) return m;
  }
  if (simple && s.hosts.length === 0 && s.question && !s.needsFetch) {
    const m = offer("grok.prompt", { prompt: goal }, "A question that needs nothing fetched: grok.prompt answers it.");
    if (m) return m;
  }
  return undefined;
}

/** Rules 2–6 on a normalised goal and a budget (micro-dollars). */
export function decideQuote(goal: string, budgetMicros: number, options: DecideOptions): QuoteDecision {
  const s = readGoalSignals(goal);
  const mapped = mapping(goal, s, options.priceOf);
  if (mapped) return mapped;

  const needs = needsOf(s);
  if (s.unbounded.length > 0) {
    const kinds = s.unbounded;
    // A crawl, link following or a long list is cut to what the largest tier reads; a one-off
    // snapshot (no monitoring, no accounts) is sized like any goal.
    const widest = kinds.some((k) => k === "too_many_urls" || k === "crawl" || k === "follow_links");
    const cut: Needs = { ...needs, sources: Math.min(needs.sources, largestTier.maxSources) };
    const tier = widest ? largestTier : (estimateTier(cut, options.minTier) ?? largestTier);
    const scope = kinds.map((k) => unboundedScopes[k]).join("; ");
    return reject("unbounded", `Unbounded work is not quoted (${kinds.map((k) => unboundedNotes[k]).join(", ")}). One counter: ${scope}.`, null, counterOf(tier, scope));
  }

  const full = estimateTier(needs, options.minTier);
  if (!full) {
    const cut = narrowTo(largestTier, needs);
    const counter = cut ? counterOf(largestTier, cut.scope) : null;
    return reject("too_large", `The goal is larger than the largest tier (${largestTier.id}).${counter ? ` One counter: ${counter.scope}.` : ""}`, null, counter);
  }

  let decision: QuoteDecision;
  if (full.priceMicros <= budgetMicros) {
    decision = accept(full, fullScope, hostsInScope(s, s.hosts.length), null, "fits_tier", `Fits ${full.id}: ${describeNeeds(needs)}.`);
  } else {
    const affordable = [...tiers].reverse().find((t) => t.priceMicros <= budgetMicros && (!options.minTier || tiers.indexOf(t) >= tiers.findIndex((x) => x.id === options.minTier)));
    const cut = affordable ? narrowTo(affordable, needs) : undefined;
    const cutTier = cut ? estimateTier(cut.needs, options.minTier) : undefined;
    if (cut && cutTier && cutTier.priceMicros <= budgetMicros) {
      decision = accept(cutTier, cut.scope, hostsInScope(s, cut.needs.sources), counterOf(full, fullScope), "narrower_scope", `The full goal is ${full.id} at ${priceText(full.priceMicros)}, above the budget; this narrower scope fits ${cutTier.id}.`);
    } else {
      return reject("budget_below_price", `The goal is ${full.id} at ${priceText(full.priceMicros)}, above the budget, and no narrower scope fits it.`, full, counterOf(full, fullScope));
    }
  }
  if (!options.modelConfigured) {
    return { ...decision, decision: "reject", reason: "no_model", note: "No language model is configured on this server, so custom work cannot run here. Nothing else was wrong with the goal.", runSkill: null, priceMicros: null, allowedHosts: [], counter: null };
  }
  return decision;
}

function describeNeeds(n: Needs): string {
  const parts = [`${n.sources} source${n.sources === 1 ? "" : "s"}`];
  if (n.words) parts.push(`${n.words} words`);
  if (n.codeLines) parts.push(`${n.codeLines} lines of code`);
  if (n.comparison) parts.push("a comparison");
  if (n.report) parts.push("a report");
  return parts.join(", ");
}

function accept(tier: Tier, scope: string, allowedHosts: string[], counter: QuoteCounter | null, reason: QuoteReason, note: string): QuoteDecision {
  return { decision: "accept", reason, note, tier: tier.id, runSkill: tier.runSkill, priceMicros: tier.priceMicros, scope, allowedHosts, counter, nextRequest: null };
}

function reject(reason: QuoteReason, note: string, tier: Tier | null, counter: QuoteCounter | null): QuoteDecision {
  return { decision: "reject", reason, note, tier: tier?.id ?? null, runSkill: null, priceMicros: null, scope: fullScope, allowedHosts: [], counter, nextRequest: null };
}

