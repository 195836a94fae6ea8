/**
 * @module web/fetch/robots-rules — one robots.txt compiled once into a matcher for one agent, so
 * asking about a URL costs a few string comparisons, not a parse (robots-parser took ~25 µs a URL:
 * it parses the URL and rescans every rule on each call, which made web/map's robots check of
 * 50,000 URLs cost over a second).
 *
 * Semantics are RFC 9309's, as robots-parser reads them (test/web/fetch/robots-rules.test.ts
 * compares the two on a table of rules and URLs): the group naming the agent's product token
 * (case-insensitive, groups of the same agent merged), else the `*` group; the longest matching
 * rule wins, an allow on a tie; `*` matches any run of characters and a final `$` anchors the end;
 * empty rules are ignored. Paths and patterns are compared percent-encoded with upper-case hex, and,
 * beyond robots-parser, a percent-encoded unreserved character (ALPHA DIGIT - . _ ~) is decoded on
 * both sides (§2.2.2), so `/%7Euser` and `/~user` are one path.
 */

interface Rule {
  readonly allow: boolean;
  readonly pattern: string;
  /** No `*` and no final `$`: a prefix test. */
  readonly prefix: boolean;
}

/** Answers for a path with its query (`/a/b?c=d`), percent-encoded as a URL holds it. */
export type RobotsMatcher = (pathAndQuery: string) => boolean;

const UNRESERVED_ESCAPE = /%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2D|2E|5F|7E)/g;

/** Upper-case hex, unreserved characters decoded. */
function normalisePath(path: string): string {
  if (!path.includes("%")) return path;
  const upper = path.replace(/%[0-9a-fA-F]{2}/g, (escape) => escape.toUpperCase());
  return upper.replace(UNRESERVED_ESCAPE, (escape) => String.fromCharCode(Number.parseInt(escape.slice(1), 16)));
}

/** A pattern as written in robots.txt → the form paths are compared in (non-ASCII encoded, `%` escapes kept). */
function normalisePattern(pattern: string): string {
  let encoded: string;
  try {
    encoded = encodeURI(pattern).replace(/%25/g, "%");
  } catch {
    encoded = pattern;
  }
  return normalisePath(encoded);
}

/** The line's field and value, comment removed; undefined without a colon. */
function splitLine(line: string): [string, string] | undefined {
  const hash = line.indexOf("#");
  const content = hash >= 0 ? line.slice(0, hash) : line;
  const colon = content.indexOf(":");
  if (colon < 0) return undefined;
  return [content.slice(0, colon).trim().toLowerCase(), content.slice(colon + 1).trim()];
}

/** A User-agent value as compared: lower case, without a "/version". */
const agentName = (value: string) => value.toLowerCase().split("/")[0]!.trim();

interface Group {
  readonly rules: Rule[];
  crawlDelaySec: number | undefined;
}

/** The group for `agent`, else `*`'s; an empty one when neither has a group. */
function groupFor(text: string, agent: string): Group {
  const groups = new Map<string, Group>();
  const open = (name: string) => {
    const group = groups.get(name) ?? { rules: [], crawlDelaySec: undefined };
    groups.set(name, group);
    return group;
  };
  let current: string[] = [];
  let inAgentLines = false;
  for (const line of text.split(/\r\n|\r|\n/)) {
    const field = splitLine(line);
    if (!field || !field[0]) continue;
    const [name, value] = field;
    if (name === "user-agent") {
      if (!inAgentLines) current = [];
      if (value) current.push(agentName(value));
      inAgentLines = true;
      continue;
    }
    inAgentLines = false;
    if (name === "crawl-delay") {
      // Crawl-delay alone still opens the groups of the agents named just before it (robots-parser's reading).
      const seconds = Number(value);
      for (const group of current) {
        const opened = open(group);
        if (opened.crawlDelaySec === undefined && value !== "" && Number.isFinite(seconds)) opened.crawlDelaySec = seconds;
      }
      continue;
    }
    if (name !== "allow" && name !== "disallow") continue;
    for (const group of current) {
      const rules = open(group).rules;
      if (!value) continue;
      const pattern = normalisePattern(value);
      rules.push({ allow: name === "allow", pattern, prefix: !pattern.includes("*") && !pattern.endsWith("$") });
    }
  }
  return groups.get(agentName(agent)) ?? groups.get("*") ?? { rules: [], crawlDelaySec: undefined };
}

/** Whether `pattern` (with `*` and a final `$`) matches the start of `path` (Google's robotstxt algorithm: the set of path positions reachable so far). */
function matchesWildcard(pattern: string, path: string): boolean {
  let positions = [0];
  for (let p = 0; p < pattern.length; p++) {
    const char = pattern[p]!;
    if (char === "$" && p === pattern.length - 1) return positions[positions.length - 1] === path.length;
    if (char === "*") {
      const from = positions[0]!;
      positions = [];
      for (let at = from; at <= path.length; at++) positions.push(at);
      continue;
    }
    const next: number[] = [];
    for (const at of positions) if (at < path.length && path[at] === char) next.push(at + 1);
    if (next.length === 0) return false;
    positions = next;
  }
  return true;
}

/** robots.txt compiled for one agent's product token: its rules as a matcher, and the Crawl-delay its group asks (seconds). */
export interface CompiledRobots {
  readonly isAllowed: RobotsMatcher;
  readonly crawlDelaySec: number | undefined;
}

export function compileRobotsFile(text: string, agent: string): CompiledRobots {
  const group = groupFor(text, agent);
  return { isAllowed: matcherOf(group.rules), crawlDelaySec: group.crawlDelaySec };
}

/** Compiles robots.txt's rules for one agent's product token. */
export function compileRobots(text: string, agent: string): RobotsMatcher {
  return matcherOf(groupFor(text, agent).rules);
}

function matcherOf(groupRules: readonly Rule[]): RobotsMatcher {
  // Longest first, allow before disallow on a tie: the first rule that matches decides.
  const rules = [...groupRules].sort((a, b) => b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow));
  if (rules.length === 0 || rules.every((r) => r.allow)) return () => true;
  return (pathAndQuery) => {
    const path = normalisePath(pathAndQuery);
    for (const rule of rules) {
      if (rule.prefix ? path.startsWith(rule.pattern) : matchesWildcard(rule.pattern, path)) return rule.allow;
    }
    return true;
  };
}
