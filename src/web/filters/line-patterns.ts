/**
 * @module web/filters/line-patterns — the line patterns of web/changes (ignore_patterns, trigger_patterns),
 * compiled with re2js, a pure-JavaScript port of RE2: matching takes time linear in the line, so a pattern
 * such as `(a+)+$` cannot stall on a long page. Bun's built-in RegExp backtracks on `(a+)+$|!` over 30 "a"s and
 * a "!" for about 1.5 s, then stops at JavaScriptCore's backtracking limit and answers false, which is wrong
 * (scripts/bench/change-filters.ts); re2js answers true in under a millisecond, on 60,000 "a"s too.
 *
 * Accepted syntax: RE2's (github.com/google/re2/wiki/Syntax) as re2js parses it without flags: no
 * backreferences, no lookahead or lookbehind; `(?i)` for case-insensitive matching. A pattern matches a line
 * when it matches anywhere in it (anchor with `^` and `$` for a whole line). A pattern that matches the empty
 * line is refused: it would match every line.
 *
 * Room web/filters/: the change-check filters (ignored elements, line patterns); it imports only web/extract/
 * (the tree and its selectors) and web/text/.
 */
import { RE2JS } from "re2js";
import { ApiError } from "../../errors.ts";

/** Patterns per list (ignore_patterns, trigger_patterns). */
export const MAX_PATTERNS = 20;
/** Characters per pattern. */
export const MAX_PATTERN_CHARS = 200;
/**
 * RE2 program size (instructions) per pattern, and of all patterns of a request together. Matching costs time
 * in proportion to program size × text: `[\p{L}]{1,400}[^\p{L}]` (802) takes about 50 ms on a 60,000-letter
 * line, and four patterns of 482 (the whole budget) 150-180 ms on the 240,000 characters a request reads at most
 * (MAX_SCAN_CHARS); `\d{1,2}:\d{2}` is 8, a 32-character session id `[A-Za-z0-9]{32}` 34.
 */
export const MAX_PROGRAM_SIZE = 500;
export const MAX_TOTAL_PROGRAM_SIZE = 2000;

/** The request field a list of patterns came in (web/changes' lines; web/map's include and exclude paths). */
export type PatternField = "ignore_patterns" | "trigger_patterns" | "include" | "exclude";

export interface LinePattern {
  readonly source: string;
  readonly regex: RE2JS;
}

/** One line of text in the description of both pattern lists (schema, README). */
export const PATTERN_SYNTAX =
  `RE2 syntax (no backreferences or lookaround; (?i) for case-insensitive), matched anywhere in each line (anchor with ^ and $); ` +
  `at most ${MAX_PATTERNS} patterns of ${MAX_PATTERN_CHARS} characters, each compiling to at most ${MAX_PROGRAM_SIZE} RE2 instructions and ` +
  `${MAX_TOTAL_PROGRAM_SIZE} for all patterns of a request; a pattern that matches the empty line is refused.`;

function refuse(field: PatternField, index: number, source: string, why: string): never {
  throw new ApiError("PATTERN_INVALID", { message: `${field}[${index}] ${JSON.stringify(source)}: ${why}` });
}

/** Compiles one list; throws ApiError PATTERN_INVALID naming the first bad pattern. */
export function compileLinePatterns(field: PatternField, sources: readonly string[] | undefined): LinePattern[] {
  if (!sources) return [];
  if (sources.length > MAX_PATTERNS) {
    throw new ApiError("PATTERN_INVALID", { message: `${field} has ${sources.length} patterns; at most ${MAX_PATTERNS}.` });
  }
  return sources.map((source, index) => {
    if (source.length === 0) refuse(field, index, source, "an empty pattern matches every line.");
    if (source.length > MAX_PATTERN_CHARS) refuse(field, index, source.slice(0, 40), `longer than ${MAX_PATTERN_CHARS} characters.`);
    let regex: RE2JS;
    try {
      regex = RE2JS.compile(source);
    } catch (error) {
      refuse(field, index, source, `not valid RE2 syntax (${(error as Error).message}).`);
    }
    const size = regex.programSize();
    if (size > MAX_PROGRAM_SIZE) refuse(field, index, source, `compiles to ${size} RE2 instructions; at most ${MAX_PROGRAM_SIZE} (use smaller repeat counts).`);
    if (regex.test("")) refuse(field, index, source, "matches the empty line, so it would match every line.");
    return { source, regex };
  });
}

/** Both lists of a request, with the shared program-size budget. Throws ApiError PATTERN_INVALID. */
export function compileRequestPatterns(ignore: readonly string[] | undefined, trigger: readonly string[] | undefined): { ignore: LinePattern[]; trigger: LinePattern[] } {
  const compiled = { ignore: compileLinePatterns("ignore_patterns", ignore), trigger: compileLinePatterns("trigger_patterns", trigger) };
  const total = [...compiled.ignore, ...compiled.trigger].reduce((sum, p) => sum + p.regex.programSize(), 0);
  if (total > MAX_TOTAL_PROGRAM_SIZE) {
    throw new ApiError("PATTERN_INVALID", {
      message: `ignore_patterns and trigger_patterns compile to ${total} RE2 instructions together; at most ${MAX_TOTAL_PROGRAM_SIZE}.`,
    });
  }
  return compiled;
}

/** Index of the first pattern that matches `line`, or -1. */
export function firstMatch(patterns: readonly LinePattern[], line: string): number {
  for (let i = 0; i < patterns.length; i++) if ((patterns[i] as LinePattern).regex.test(line)) return i;
  return -1;
}
