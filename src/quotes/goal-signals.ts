/**
 * @module quotes/goal-signals — what a goal asks for, read deterministically: the sources it names
 * (URLs and bare site names), the answer length, code it carries, a comparison or a report, and
 * the marks of unbounded work. The decision (quotes/decide.ts) reads only these.
 */
import { isLogShaped } from "./log-shape.ts";

export type UnboundedKind = "too_many_urls" | "crawl" | "follow_links" | "recurring" | "state";

export interface GoalSignals {
  /** Distinct http(s) URLs, in the order the goal lists them. */
  readonly urls: readonly string[];
  /** Hosts the goal names (URL hosts first, then bare site names), lowercase. */
  readonly hosts: readonly string[];
  /** Distinct sources: URLs plus named sites that no URL covers. */
  readonly sources: number;
  /** The longest answer asked for, in words (0 when none is named). */
  readonly words: number;
  readonly codeLines: number;
  readonly comparison: boolean;
  readonly report: boolean;
  readonly unbounded: readonly UnboundedKind[];
  readonly logShaped: boolean;
  /** Asks about this server's own health (disk, load, memory). */
  readonly aboutOurHost: boolean;
  /** Asks for a summary or briefing of a page. */
  readonly summary: boolean;
  /** Reads as a question a model can answer from what it knows. */
  readonly question: boolean;
  /** Needs something fetched or current (news, prices today, a search). */
  readonly needsFetch: boolean;
}

/** More URLs than this is unbounded (spec: no more than 20). */
export const maxUrls = 20;

const urlPattern = /\bhttps?:\/\/[^\s<>"'`)\]}]+/gi;
// Bare site names: common TLDs only, so file names (index.ts, package.json) are not sites.
const sitePattern = /\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|org|net|io|dev|ai|app|co|uk|de|fr|nl|eu|edu|gov|info|biz|me|xyz|tech|cloud|us|ca|au|jp|ch|se|es|it|pl|br|news|blog|wiki))\b/gi;

const unboundedRules: readonly [UnboundedKind, RegExp][] = [
  ["crawl", /\b(crawl\w*|spider\w*|whole (web)?site|entire (web)?site|whole domain|entire domain|all (?:the |of the )?pages|every page|each page (?:of|on)|site-?wide|every (?:url|link|article|post) (?:on|of)|all (?:the )?(?:urls|links|articles|posts) (?:on|of))\b/i],
  ["follow_links", /\b(follow(?:ing)? (?:all |every |each |the )?(?:links?|hyperlinks?)|recursive(?:ly)?)\b/i],
  [
    "recurring",
    /\b(monitor\w*|keep (?:checking|watching|an eye|track)|watch (?:it|this|them|for)|every (?:day|hour|week|month|minute|morning|evening|night|\d+ (?:seconds?|minutes?|hours?|days?|weeks?))|daily|hourly|weekly|nightly|monthly|forever|indefinitely|continuously|on a schedule|until (?:further notice|it|they|i|we|the|cancel\w*|stopped)|alert me|notify me|ping me)\b/i,
  ],
  ["state", /\b((?:create|register|open|make|sign up for) (?:an? |\d+ |new |several |multiple |many )*(?:user |email |social |test )*accounts?|sign(?:ing)? up|log ?in (?:to|as|with)|remember (?:this|it|my)|across (?:jobs|sessions|runs))\b/i],
];

const comparisonPattern = /\b(compare|comparing|comparison|versus|vs\.?|side[- ]by[- ]side|pros and cons|trade-?offs? between)\b/i;
const reportPattern = /\b((?:structured|detailed|full|comprehensive|research|written|in-depth|market|competitive|analyst|formal) report|a report|due diligence|white ?paper|literature review|market (?:analysis|research))\b/i;
const summaryPattern = /\b(summar(?:y|ise|ize|ising|izing)|brief(?:ing)?|tl;?dr|gist|key (?:points|takeaways)|what does (?:this|the|that) (?:page|article|post|site|document|link) say)\b/i;
const hostPattern = /\b(?:your|this|the tollbooth|the)\s+(?:own\s+)?(?:host|server|machine|box)\b/i;
const healthPattern = /\b(status|disk|load|memory|uptime|cpu|health)\b/i;
const questionStart = /^(what|why|how|who|when|where|which|is|are|can|could|does|do|did|should|would|will|explain|define|describe|tell me|give me|write|list|suggest|name)\b/i;
const fetchPattern = /\b(latest|current(?:ly)?|today|this (?:week|month|year)|news|look up|search (?:for|the web)|browse|fetch|download|online|on the web|live price|stock price|weather)\b/i;
const codeLinePattern = /[;{}]\s*$|^\s*(def |class |function |const |let |var |import |from \S+ import|return\b|if\s*\(|for\s*\(|#include|package |fn |pub |public |private |SELECT |<\/?[a-z][\w-]*[\s>])|=>/;

function trimUrl(url: string): string {
  return url.replace(/[.,;:!?]+$/, "");
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Lines of code the goal carries: fenced blocks, else lines that read as code when at least three do. */
function countCodeLines(goal: string): number {
  const fenced = [...goal.matchAll(/```[^\n]*\n([\s\S]*?)(?:```|$)/g)];
  if (fenced.length > 0) return fenced.reduce((n, m) => n + (m[1] ?? "").split("\n").filter((l) => l.trim() !== "").length, 0);
  const lines = goal.split("\n").filter((l) => codeLinePattern.test(l));
  return lines.length >= 3 ? lines.length : 0;
}

/** The longest answer asked for: "in 1,200 words", "a 5-page report" (500 words a page). */
function askedWords(goal: string): number {
  let words = 0;
  for (const m of goal.matchAll(/(\d[\d,]*)\s*(?:-|\s)?\s*words?\b/gi)) words = Math.max(words, Number(m[1]!.replace(/,/g, "")));
  for (const m of goal.matchAll(/(\d+)\s*-?\s*pages?\s+(?:long|report|essay|document|paper|article|summary|brief)/gi)) words = Math.max(words, Number(m[1]) * 500);
  return words;
}

export function readGoalSignals(goal: string): GoalSignals {
  const urls = [...new Set([...goal.matchAll(urlPattern)].map((m) => trimUrl(m[0])))];
  const urlHosts = urls.map(hostOf).filter((h): h is string => h !== undefined);
  const withoutUrls = goal.replace(urlPattern, " ");
  const sites = [...withoutUrls.matchAll(sitePattern)].map((m) => m[1]!.toLowerCase()).filter((s) => !/^\d/.test(s));
  const hosts = [...new Set([...urlHosts, ...sites])];
  const covered = new Set(urlHosts.map((h) => h.replace(/^www\./, "")));
  const bareSites = new Set(sites.filter((s) => !covered.has(s.replace(/^www\./, ""))));
  const unbounded: UnboundedKind[] = [];
  if (urls.length > maxUrls) unbounded.push("too_many_urls");
  for (const [kind, pattern] of unboundedRules) if (pattern.test(goal)) unbounded.push(kind);
  const codeLines = countCodeLines(goal);
  const firstLine = goal.trim().split("\n")[0] ?? "";
  return {
    urls,
    hosts,
    sources: urls.length + bareSites.size,
    words: askedWords(goal),
    codeLines,
    comparison: comparisonPattern.test(goal),
    report: reportPattern.test(goal),
    unbounded,
    logShaped: isLogShaped(goal),
    aboutOurHost: hostPattern.test(goal) && healthPattern.test(goal) && urls.length === 0,
    summary: summaryPattern.test(goal),
    question: /\?\s*$/.test(goal.trim()) || questionStart.test(firstLine.trim()),
    needsFetch: fetchPattern.test(goal),
  };
}
