/**
 * @module logs/diagnose — the rules engine of `code.fix_from_log`: the reducer's failure window
 * matched against the pattern table. The most specific match (highest weight, then earliest
 * line) is the root cause; when nothing matches the answer says so, with a low confidence.
 */
import { Type, type Static } from "@sinclair/typebox";
import { type CompiledPattern, fillTemplate, patternTable } from "./patterns.ts";
import { cleanLines, isErrorLine, type LogWindow, MAX_MATCH_CHARS, reduceLog } from "./reduce.ts";

export const FailingLinesSchema = Type.Object({
  from: Type.Integer({ minimum: 1, description: "First line of the failure window (1-based, in the log as sent)." }),
  to: Type.Integer({ minimum: 1, description: "Last line of the failure window (inclusive)." }),
});

export const PatternMatchSchema = Type.Object({
  id: Type.String(),
  family: Type.String(),
  line: Type.Integer({ minimum: 1 }),
});

export const DiagnosisSchema = Type.Object({
  diagnosis: Type.Array(Type.String(), { description: "Findings, most important first." }),
  root_cause: Type.String(),
  fix_steps: Type.Array(Type.String()),
  patch_sketch: Type.Union([Type.String(), Type.Null()], { description: "A sketch of the change when the failure suggests one." }),
  failing_lines: FailingLinesSchema,
  family: Type.String({ description: "Failure family (npm, typescript, python, go, rust, java, docker, github-actions, missing-tool, memory, …) or unknown." }),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  engine: Type.Union([Type.Literal("rules"), Type.Literal("model")]),
  /** The pattern table entries that matched, most specific first. */
  matches: Type.Array(PatternMatchSchema),
  /** The failure window's cleaned text (what a model would be shown). */
  window: Type.String(),
});

export type Diagnosis = Static<typeof DiagnosisSchema>;

export interface DiagnoseOptions {
  /** Operator entries from loadPatternFile; they come before (and may replace) the built-ins. */
  readonly extraPatterns?: readonly CompiledPattern[];
  readonly maxLines?: number;
}

/** Matches outside the window count, but less: the window is where the failure was found. */
const OUTSIDE_WINDOW_FACTOR = 0.6;
/** Only specific entries are looked for outside the window. */
const OUTSIDE_WINDOW_MIN_WEIGHT = 0.8;
/** How much of the log before the window is scanned for specific entries. */
const OUTSIDE_WINDOW_LINES = 2000;
const MAX_WINDOW_CHARS = 12_000;
const MAX_QUOTE_CHARS = 300;

interface Found {
  readonly entry: CompiledPattern;
  readonly line: number;
  readonly groups: readonly (string | undefined)[];
  readonly inWindow: boolean;
}

const quote = (text: string) => {
  const trimmed = text.trim();
  return trimmed.length > MAX_QUOTE_CHARS ? `${trimmed.slice(0, MAX_QUOTE_CHARS)}…` : trimmed;
};

function matchLines(table: readonly CompiledPattern[], lines: readonly { n: number; text: string }[], inWindow: boolean, minWeight = 0): Found[] {
  const found: Found[] = [];
  const seen = new Set<string>();
  for (const { n, text } of lines) {
    if (text.trim() === "") continue;
    for (const entry of table) {
      if (entry.weight < minWeight || seen.has(entry.id)) continue;
      const match = entry.pattern.exec(text.length > MAX_MATCH_CHARS ? text.slice(0, MAX_MATCH_CHARS) : text);
      if (!match) continue;
      seen.add(entry.id);
      found.push({ entry, line: n, groups: [...match], inWindow });
    }
  }
  return found;
}

const score = (f: Found) => f.entry.weight * (f.inWindow ? 1 : OUTSIDE_WINDOW_FACTOR);

function windowText(window: LogWindow): string {
  return window.text.length > MAX_WINDOW_CHARS ? `${window.text.slice(0, MAX_WINDOW_CHARS)}\n…` : window.text;
}

/** Diagnoses a CI, build or runtime log with the rules engine (no model, no I/O). */
export function diagnoseLog(log: string, options: DiagnoseOptions = {}): Diagnosis {
  const table = patternTable(options.extraPatterns);
  const window = reduceLog(log, { maxLines: options.maxLines, errorPatterns: table.filter((e) => e.weight >= 0.5).map((e) => e.pattern) });
  const failing_lines = { from: window.from, to: window.to };
  const where = `The failure window is lines ${window.from}–${window.to} of ${window.total_lines}${window.anchor ? `, ending at the failing command's marker on line ${window.anchor.n}: "${quote(window.anchor.text)}"` : " (no failing-command marker was found; the window is where the last errors are)"}.`;

  const inWindow = matchLines(table, window.lines, true);
  let found = inWindow;
  if (found.length === 0) {
    // Nothing in the window: the whole log before it may still name a specific cause (an OOM kill, a missing tool).
    const all = cleanLines(log);
    const before = all.slice(Math.max(0, window.from - 1 - OUTSIDE_WINDOW_LINES), window.from - 1).map((text, i) => ({ n: Math.max(1, window.from - OUTSIDE_WINDOW_LINES) + i, text }));
    found = matchLines(table, before.reverse(), false, OUTSIDE_WINDOW_MIN_WEIGHT);
  }
  found.sort((a, b) => score(b) - score(a) || a.line - b.line);

  const firstError = window.lines.find((l) => isErrorLine(l.text));
  if (found.length === 0) {
    return {
      diagnosis: [
        "No entry of the failure pattern table matched this log; the rules engine cannot name the cause.",
        firstError ? `The first line that reads as an error is line ${firstError.n}: "${quote(firstError.text)}".` : "No line in the window reads as an error.",
        where,
      ],
      root_cause: firstError ? `Unknown; the log's failure starts at line ${firstError.n}: "${quote(firstError.text)}".` : "Unknown: the log does not show a recognisable error.",
      fix_steps: [
        `Read lines ${window.from}–${window.to} of the log (the window below): the first error there is usually the cause and later ones follow from it.`,
        "Re-run the failing command locally with the same tool versions to reproduce it.",
        "If the log was cut short, send the full log of the failing step.",
      ],
      patch_sketch: null,
      failing_lines,
      family: "unknown",
      confidence: firstError ? 0.15 : 0.05,
      engine: "rules",
      matches: [],
      window: windowText(window),
    };
  }

  const primary = found[0] as Found;
  const render = (f: Found, template: string) => fillTemplate(template, f.groups);
  const lineText = (f: Found) => (f.inWindow ? window.lines.find((l) => l.n === f.line)?.text : cleanLines(log)[f.line - 1]) ?? "";
  const diagnosis = [
    `${render(primary, primary.entry.root_cause)} (line ${primary.line}: "${quote(lineText(primary))}")`,
    // Further findings on other lines (a second entry for the primary's own line adds nothing).
    ...found
      .slice(1)
      .filter((f) => f.line !== primary.line)
      .slice(0, 4)
      .map((f) => `Also on line ${f.line} (${f.entry.family}): ${render(f, f.entry.root_cause)}`),
    where,
  ];
  if (!primary.inWindow) diagnosis.push("The matching line lies before the failure window, so the cause is less certain.");
  return {
    diagnosis,
    root_cause: render(primary, primary.entry.root_cause),
    fix_steps: primary.entry.fix_steps.map((step) => render(primary, step)),
    patch_sketch: primary.entry.patch_sketch ? render(primary, primary.entry.patch_sketch) : null,
    failing_lines,
    family: primary.entry.family,
    confidence: Math.round(Math.min(0.95, score(primary)) * 100) / 100,
    engine: "rules",
    matches: found.map((f) => ({ id: f.entry.id, family: f.entry.family, line: f.line })),
    window: windowText(window),
  };
}
