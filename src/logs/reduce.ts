/**
 * @module logs/reduce — cuts a CI, build or runtime log down to the lines that say why it failed.
 *
 * 1. Every line is cleaned (logs/clean: ANSI, `\r` overwrites, CI tokens, timestamps) and keeps
 *    its original 1-based number.
 * 2. The anchor is the last failing-command marker (`The command "…" exited with 1`, `Process
 *    completed with exit code 2`, `make: *** … Error`, `##[error]`, `npm ERR!`, `BUILD FAILURE`,
 *    …). The search runs back from it to the command that failed (the previous `$ cmd` echo or
 *    step header) or the previous anchor. A failing command whose output holds no error (a later
 *    step failing because an earlier one did) hands the anchor to the failing command before it;
 *    a failing command that ended just before this one began is read with it when both fit.
 * 3. Back from the anchor, over the failure's boilerplate (npm's "A complete log…", summaries,
 *    the runner's own exit lines), to the last line that reads as an error; then back through
 *    that error's cluster (error lines no more than a few lines apart, with their stack frames,
 *    code frames and indented detail) to its first line.
 * 4. The window always holds the `contextLines` lines of output before the anchor; the cluster
 *    joins them when the two meet, and a cluster further back replaces them only when it holds
 *    a certain error. The failing command's first certain error (test runners print details
 *    first, summaries last) joins or replaces that window when it holds more certain errors.
 *    The window is at most `maxLines` long; repeated lines inside it are collapsed with a count.
 * Pure: no model, no I/O.
 */
import { Type, type Static } from "@sinclair/typebox";
import { cleanLine } from "./clean.ts";

export const WindowLineSchema = Type.Object({
  /** Original 1-based line number (the first of a run of repeats). */
  n: Type.Integer({ minimum: 1 }),
  text: Type.String(),
  /** How many identical consecutive lines this one stands for, when more than one. */
  repeat: Type.Optional(Type.Integer({ minimum: 2 })),
});

export const LogWindowSchema = Type.Object({
  /** First and last original line (1-based, inclusive) of the window. */
  from: Type.Integer({ minimum: 1 }),
  to: Type.Integer({ minimum: 1 }),
  lines: Type.Array(WindowLineSchema),
  /** The window's cleaned lines joined by `\n` (repeats as `… (×N)`). */
  text: Type.String(),
  total_lines: Type.Integer({ minimum: 0 }),
  /** The failing-command marker the window was anchored at, if any. */
  anchor: Type.Union([Type.Object({ n: Type.Integer({ minimum: 1 }), text: Type.String() }), Type.Null()]),
});

export type WindowLine = Static<typeof WindowLineSchema>;
export type LogWindow = Static<typeof LogWindowSchema>;

export interface ReduceOptions {
  /** Largest window in original lines (default 40). */
  readonly maxLines?: number;
  /** How many lines of output just before the failing-command marker the window always holds (default 20; boilerplate not counted). */
  readonly contextLines?: number;
  /** Extra regular expressions that mark a line as an error (the pattern table's). */
  readonly errorPatterns?: readonly RegExp[];
}

const DEFAULT_MAX_LINES = 40;
const DEFAULT_CONTEXT_LINES = 20;
/** How far back from the anchor the search goes when no command boundary is found. */
const MAX_SEARCH = 3000;
/** Error lines at most this many lines apart belong to the same cluster. */
const CLUSTER_GAP = 6;
/** How far back from the anchor the last error line may be (past that the anchor stands alone). */
const MAX_TAIL = 400;
/** How many silent failing commands are passed over on the way back to one that says why. */
const MAX_SILENT_HOPS = 3;
/** A failing command whose marker is at most this many lines before the next command's start is read with it. */
const CASCADE_GAP = 5;

/** A command, step or script that failed: the anchor. */
const FAILING_COMMAND = [
  /\bexited with (?:code |status )?[1-9]\d*\b/i,
  /\bfailed and exited with [1-9]/,
  /Process completed with exit code [1-9]/,
  /^make(?:\[\d+\])?: \*\*\* .*\bError \d+/,
  /^##\[error\]/,
  /^npm ERR! /,
  /^(?:yarn|pnpm)?\s*(?:error|ERR_PNPM_\w+)\b.*(?:Command failed|exit code [1-9])/i,
  /^error Command failed with exit code [1-9]/,
  /error: process didn't exit successfully/,
  /\bBUILD FAILURE\b/,
  /^FAILURE: Build failed with an exception/,
  /^BUILD FAILED\b/,
  /returned a non-zero code: [1-9]/,
  /\bexit (?:code|status):? [1-9]\d*\b/i,
  /^ERROR: Job failed/,
  /^\*\*\* Failed \*\*\*$/,
  /^FAIL\s*$/,
  /^FAIL\s+\S+\s+[\d.]+s$/,
  /^Error: Process completed/,
];

/** Lines that accompany a failure without explaining it: skipped when looking back for the error. */
const BOILERPLATE = [
  /Done\. Your build exited with/,
  /^The command ".*/,
  /^" (?:failed and )?exited with \d+\.?$/,
  /^travis_retry\b/,
  /^npm ERR! (?:code [A-Z]|errno|\S+@\S+ \S+:|Exit status|Failed at the|This is probably not a problem|A complete log|\s+\/|$|Test failed\.|missing script)/,
  /^npm ERR!\s*$/,
  /^(?:npm )?WARN\b/,
  /^error Command failed with exit code/,
  /^info Visit https:\/\/yarnpkg\.com/,
  /^make(?:\[\d+\])?: \*\*\* /,
  /^make(?:\[\d+\])?: (?:Leaving|Entering) directory/,
  /^Makefile:\d+: recipe for target .* failed/,
  /^\[ERROR\] (?:-> \[Help|Re-run Maven|To see the full stack|For more information|\s*$|Help 1|After correcting)/,
  /^\[ERROR\]\s*$/,
  /^(?:\* Try:|\* Get more help|Run with --(?:stacktrace|info|debug|scan))/,
  /^BUILD FAILED in /,
  /^\d+ actionable tasks?:/,
  /^=+ .*\b(?:failed|error|errors)\b.* in [\d.]+ ?s(?:econds)?\b.*=+$/,
  /^=+ (?:short test summary info|warnings summary|FAILURES|ERRORS) =+$/,
  /^-- Docs: https:\/\/docs\.pytest\.org/,
  /^##\[error\]Process completed with exit code/,
  /^Error: Process completed with exit code/,
  /^(?:ERROR: )?Job failed: exit code/,
  /^Ran \d+ tests? in [\d.]+s$/,
  /^Finished in [\d.]+ (?:seconds|minutes)/,
  /^\s*$/,
];

/** Where the failing command's output starts: a shell echo (`$ cmd`, `+ cmd`) or a CI step header. */
const COMMAND_START = [/^\$ \S/, /^##\[group\]Run /, /^Run \S/, /^Step \d+\/\d+ : /, /^#\d+ \[[^\]]+\] RUN /];

/** Reads as an error by itself (the first or last line of a failure). */
const ERROR_LINE = [
  /\b(?:error|ERROR|Error)(?:\[E\d+\])?(?:\s*[:!\]]|\s+(?:TS|CS|C)\d+|\s+in\b)/,
  /\b[A-Z]\w*(?:Error|Exception|Failure)\b(?::|\s*$|\s+at\b)/,
  /\b(?:FAIL(?:ED|URE)?|ERRORS?|FATAL|PANIC)\b/,
  /\b(?:fatal|panic|Traceback|Segmentation fault|core dumped|Abort(?:ed)?)\b/,
  /^E\s{2,}\S/,
  /\b(?:failed|failure|failures|errors)\b/i,
  /\b(?:cannot|can't|could not|couldn't|unable to|not found|no such file|permission denied|not defined|undefined (?:reference|symbol|method|variable|local)|is not a function|unexpected|mismatch|expected .* (?:but|got|to )|does not exist|not ok\b|timed? ?out|killed|out of memory)\b/i,
  /^\s*(?:[✗✖×✘]|\d+\) )/,
  /^\*\* \(\w+/,
  /^\s*>\s+\S/,
  /^\s*\^+\s*$/,
];

/** Not an error even if a keyword appears: zero counts, lint/flag names, passing summaries. */
const NOT_ERROR = [
  /\b0 (?:errors?|failures?|failed)\b/i,
  /\bwarning\b(?!.*\berror\b)/i,
  /-W(?:no-)?error\b/,
  /\b(?:error|fail)[_-](?:reporting|on|handler|log|fast)\b/i,
  /^(?:ok|PASS|passed)\b/,
  /^\$ /,
];

/** Follows an error line and belongs to it: stack frames, code frames, indented detail, carets. */
const CONTINUATION = [/^\s+\S/, /^\s*at\s/, /^\s*\^/, /^\s*\|/, /^\s*\d+\s*\|/, /^\s*File "/, /^\s*(?:in|from)\s/, /^\s*\.\.\.\s*$/];

/**
 * Patterns see at most this much of a line: a regex that backtracks (an operator's, or a slip in
 * ours) stays bounded on a 200,000-character line.
 */
export const MAX_MATCH_CHARS = 2000;

function matchesAny(patterns: readonly RegExp[], text: string): boolean {
  const head = text.length > MAX_MATCH_CHARS ? text.slice(0, MAX_MATCH_CHARS) : text;
  for (const pattern of patterns) if (pattern.test(head)) return true;
  return false;
}

/** Cleans every line of `log`, keeping index i for original line i + 1. */
export function cleanLines(log: string): string[] {
  return log.split("\n").map(cleanLine);
}

export function isFailingCommand(text: string): boolean {
  return matchesAny(FAILING_COMMAND, text);
}

export function isErrorLine(text: string, extra: readonly RegExp[] = []): boolean {
  if (text.trim() === "" || matchesAny(NOT_ERROR, text)) return false;
  return matchesAny(ERROR_LINE, text) || matchesAny(extra, text);
}

/** Certainly an error, not merely a line that mentions one. */
const STRONG_ERROR = [
  /^\s*(?:\S+:\d+(?::\d+)?:?\s*)?(?:fatal |error|ERROR|Error)(?:\[\w+\])?[:!]/,
  /^\s*(?:FAIL(?:ED)?|ERROR|FATAL)\b/,
  /\[(?:FAIL|FAILED|ERROR)\]|\*\*\* FAILED \*\*\*|<<< (?:FAILURE|ERROR)!/,
  /^\s*(?:Traceback \(most recent call last\)|panic:|\*\* \(\w+|not ok \d+|[✗✖✘] )/,
  /^\s*(?:[\w.$]+\.)?[A-Z]\w*(?:Error|Exception)(?::|$)/,
  /^E\s{2,}\S/,
  /\b(?:Segmentation fault|core dumped|command not found|No such file or directory|Permission denied)\b/,
  // A test runner's failure headers: PHPUnit, RSpec, mocha and friends number their failures.
  /^There (?:was|were) \d+ (?:failure|error)s?:|^\s*(?:Failures|Errors):\s*$|^\s*\d+\) \S|\bFailed asserting\b/,
  // `test_x (pkg.Case) ... FAIL` (unittest), `* checking tests ... ERROR` (R CMD check) and the like.
  /\.\.\.? ?(?:ERROR|FAILED|FAIL)$/,
];

function isStrongError(text: string, extra: readonly RegExp[]): boolean {
  return matchesAny(STRONG_ERROR, text) || matchesAny(extra, text);
}

function hasStrongError(lines: readonly string[], first: number, last: number, extra: readonly RegExp[]): boolean {
  return countStrongErrors(lines, first, last, extra) > 0;
}

function countStrongErrors(lines: readonly string[], first: number, last: number, extra: readonly RegExp[]): number {
  let count = 0;
  for (let i = first; i <= last; i++) if (isStrongError(lines[i] as string, extra)) count++;
  return count;
}

/** The first line in [from, before) that is certainly an error and not boilerplate, or -1. */
function firstStrongError(lines: readonly string[], from: number, before: number): number {
  for (let i = from; i < before; i++) {
    const text = lines[i] as string;
    if (matchesAny(STRONG_ERROR, text) && !isBoilerplate(text)) return i;
  }
  return -1;
}

function isBoilerplate(text: string): boolean {
  return matchesAny(BOILERPLATE, text);
}

/** Index of the last failing-command marker, or -1. */
function findAnchor(lines: readonly string[], before = lines.length): number {
  for (let i = before - 1; i >= 0; i--) {
    const text = lines[i] as string;
    // Travis's last line may be glued to the output before it ("…nlDone. Your build exited with 1.").
    if (text !== "" && isFailingCommand(text) && !/Done\. Your build exited with/.test(text)) return i;
  }
  return -1;
}

/**
 * Travis CI quotes a multi-line command in full: `The command "…` on one line, `…" exited with 1.`
 * lines later. The failure's output ends before the quote starts.
 */
function quoteStart(lines: readonly string[], anchor: number): number {
  if (!/^[^"]*" (?:failed and )?exited with/.test(lines[anchor] as string)) return anchor;
  for (let i = anchor - 1; i >= 0 && anchor - i < 200; i--) if (/^The command "/.test(lines[i] as string)) return i;
  return anchor;
}

/** Where the search for the anchor's error stops: its command's start or the anchor before it. */
function searchStart(lines: readonly string[], anchor: number): number {
  const floor = Math.max(0, anchor - MAX_SEARCH);
  for (let i = anchor - 1; i >= floor; i--) {
    const text = lines[i] as string;
    if (matchesAny(COMMAND_START, text)) return i;
    if (/^The command ".*(?:failed and )?exited with/.test(text)) return i + 1;
  }
  return floor;
}

/** No line between the command's start and its marker reads as an error. */
function isSilent(lines: readonly string[], start: number, stop: number, extra: readonly RegExp[]): boolean {
  for (let i = start + 1; i < stop; i++) if (!isBoilerplate(lines[i] as string) && isErrorLine(lines[i] as string, extra)) return false;
  return true;
}

/** Index of the first of the `count` lines before `stop` that are not boilerplate (never before `start`). */
function leadUp(lines: readonly string[], start: number, stop: number, count: number): number {
  let at = stop;
  for (let seen = 0; at > start && seen < count; ) {
    at--;
    if (!isBoilerplate(lines[at] as string)) seen++;
  }
  return at;
}

/** The window's lines with consecutive repeats collapsed. */
function collapse(lines: readonly string[], from: number, to: number): WindowLine[] {
  const out: WindowLine[] = [];
  for (let i = from; i <= to; i++) {
    const text = lines[i] as string;
    const last = out.at(-1);
    if (last && last.text === text) last.repeat = (last.repeat ?? 1) + 1;
    else out.push({ n: i + 1, text });
  }
  return out;
}

function windowOf(lines: readonly string[], from: number, to: number, anchor: number): LogWindow {
  const kept = collapse(lines, from, to);
  return {
    from: from + 1,
    to: to + 1,
    lines: kept,
    text: kept.map((l) => (l.repeat ? `${l.text} (×${l.repeat})` : l.text)).join("\n"),
    total_lines: lines.length,
    anchor: anchor >= 0 ? { n: anchor + 1, text: lines[anchor] as string } : null,
  };
}

/** Reduces `log` to the window that most likely explains its failure. */
export function reduceLog(log: string, options: ReduceOptions = {}): LogWindow {
  const settings: Settings = {
    maxLines: Math.max(1, options.maxLines ?? DEFAULT_MAX_LINES),
    contextLines: Math.max(0, options.contextLines ?? DEFAULT_CONTEXT_LINES),
    extra: options.errorPatterns ?? [],
  };
  const lines = cleanLines(log);
  // A log that ends in a newline has an empty last "line": keep numbering, but do not aim at it.
  let end = lines.length - 1;
  while (end > 0 && (lines[end] as string).trim() === "") end--;

  let anchor = findAnchor(lines);
  if (anchor < 0) {
    const span = failureSpan(lines, -1, Math.max(0, end - MAX_SEARCH), end, settings);
    return windowOf(lines, span.from, span.to, -1);
  }
  let start = searchStart(lines, anchor);
  // A command that failed without a word (a later step that fails because an earlier one did)
  // explains nothing: the failing command before it is the one to read.
  for (let hops = 0; hops < MAX_SILENT_HOPS && isSilent(lines, start, quoteStart(lines, anchor), settings.extra); hops++) {
    const previous = findAnchor(lines, start);
    if (previous < 0) break;
    anchor = previous;
    start = searchStart(lines, anchor);
  }
  let span = failureSpan(lines, anchor, start, quoteStart(lines, anchor), settings);
  // A failure that follows right on another one (a copy step missing the file a failed build
  // should have made) is read with it when both fit in the window.
  const previous = findAnchor(lines, start);
  if (previous >= 0 && start - previous <= CASCADE_GAP) {
    const previousStart = searchStart(lines, previous);
    const previousStop = quoteStart(lines, previous);
    if (!isSilent(lines, previousStart, previousStop, settings.extra)) {
      const earlier = failureSpan(lines, previous, previousStart, previousStop, settings);
      if (span.to - earlier.from + 1 <= settings.maxLines) span = { from: earlier.from, to: span.to };
    }
  }
  return windowOf(lines, span.from, span.to, anchor);
}

interface Settings {
  readonly maxLines: number;
  readonly contextLines: number;
  readonly extra: readonly RegExp[];
}

/** The window of one failure: the command's output runs from `start` to `stop` (its marker, or the log's end without one). */
function failureSpan(lines: readonly string[], anchor: number, start: number, stop: number, { maxLines, contextLines, extra }: Settings): { from: number; to: number } {
  // Back from the anchor over boilerplate to the last line that reads as an error.
  let last = -1;
  for (let i = stop - (anchor >= 0 ? 1 : 0); i >= start && i >= stop - MAX_TAIL; i--) {
    const text = lines[i] as string;
    if (isBoilerplate(text)) continue;
    if (isErrorLine(text, extra)) {
      last = i;
      break;
    }
  }
  if (last < 0) {
    // Nothing reads as an error: the lines just before the anchor (or the end), which is all a reader has.
    return { from: Math.max(start, leadUp(lines, start, stop, Math.min(maxLines, contextLines))), to: stop };
  }

  // Back through the cluster: error lines at most CLUSTER_GAP apart, continuation lines between them.
  let first = last;
  for (let i = last - 1; i >= start && last - i < maxLines * 4; i--) {
    const text = lines[i] as string;
    if (isErrorLine(text, extra)) {
      if (first - i > CLUSTER_GAP) break;
      first = i;
    } else if (first - i > CLUSTER_GAP && !matchesAny(CONTINUATION, text)) break;
  }
  // The output just before the failing command's marker is always read: a failure often ends in
  // lines no rule knows. The error cluster joins it when the two meet; a cluster further back
  // replaces it only when it holds a line that is certainly an error.
  const leadFrom = Math.max(start, leadUp(lines, start, stop, contextLines));
  let from: number;
  let to: number;
  if (last >= leadFrom - CLUSTER_GAP) {
    from = Math.max(start, Math.min(first - 2, leadFrom));
    to = stop;
    // Too long: the first error is the likelier cause, later ones follow from it.
    if (to - from + 1 > maxLines) to = from + maxLines - 1;
  } else if (hasStrongError(lines, first, last, extra)) {
    from = Math.max(start, first - 2);
    to = Math.min(last + 3, from + maxLines - 1);
  } else {
    from = leadFrom;
    to = stop;
  }
  // Test runners print each failure's detail early and a summary at the end: the failing command's
  // first certain error competes with the window found from the end. Both are kept when they fit
  // in maxLines together; otherwise the one with more certain error lines wins (ties: the end).
  const firstCertain = firstStrongError(lines, start, from);
  if (firstCertain >= 0) {
    const earlyFrom = Math.max(start, firstCertain - 2);
    const earlyTo = Math.min(stop, earlyFrom + maxLines - 1);
    if (to - earlyFrom + 1 <= maxLines) from = earlyFrom;
    else if (countStrongErrors(lines, earlyFrom, earlyTo, extra) > countStrongErrors(lines, from, to, extra)) {
      from = earlyFrom;
      to = earlyTo;
    }
  }
  return { from, to: Math.max(to, from) };
}
