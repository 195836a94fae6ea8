/**
 * @module logs/patterns — the failure pattern table: data (patterns.json), extendable by an
 * operator's JSON file of the same shape, checked with TypeBox and compiled once.
 *
 * An entry's `root_cause`, `fix_steps` and `patch_sketch` are templates: `{n}` is the regex's
 * capture group n (empty when it did not take part), and a `[[…]]` segment is dropped when every
 * `{n}` inside it is empty, so optional details read naturally.
 */
import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import builtinTable from "./patterns.json" with { type: "json" };

export const PatternEntrySchema = Type.Object(
  {
    /** Unique; an operator entry with a built-in's id replaces it. */
    id: Type.String({ pattern: "^[a-z0-9][a-z0-9._-]*$", maxLength: 80 }),
    /** Failure family: npm, typescript, python, go, rust, java, docker, github-actions, missing-tool, memory, … */
    family: Type.String({ pattern: "^[a-z0-9][a-z0-9-]*$", maxLength: 40 }),
    /** JavaScript regular expression source, tested against each cleaned line of the failure window. */
    regex: Type.String({ minLength: 1, maxLength: 2000 }),
    /** Regex flags among i, m, s, u (never g or y: the match is stateless). */
    flags: Type.Optional(Type.String({ pattern: "^[imsu]*$" })),
    root_cause: Type.String({ minLength: 1, maxLength: 1000 }),
    fix_steps: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: 10 }),
    patch_sketch: Type.Optional(Type.String({ maxLength: 4000 })),
    /** How specific the entry is, 0..1: the most specific match explains the failure; it sets the confidence. */
    weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

export const PatternTableSchema = Type.Object({ patterns: Type.Array(Type.Unknown()) }, { additionalProperties: false });

export type PatternEntry = Static<typeof PatternEntrySchema>;

export interface CompiledPattern extends PatternEntry {
  readonly weight: number;
  readonly pattern: RegExp;
}

/** An extension file that cannot be used; `problems` names every bad entry. */
export class PatternFileError extends Error {
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(`pattern file ${path}: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
    this.name = "PatternFileError";
  }
}

const DEFAULT_WEIGHT = 0.6;

/** Checks a parsed table; returns its entries compiled, or the list of problems (entry index, id, field, reason). */
export function checkPatternTable(table: unknown): { entries: CompiledPattern[]; problems: string[] } {
  if (!Value.Check(PatternTableSchema, table)) {
    return { entries: [], problems: ['the file must be a JSON object {"patterns": [ … ]} and nothing else'] };
  }
  const entries: CompiledPattern[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  table.patterns.forEach((entry, index) => {
    const name = `entry ${index}${typeof (entry as { id?: unknown })?.id === "string" ? ` (id "${(entry as { id: string }).id}")` : ""}`;
    if (!Value.Check(PatternEntrySchema, entry)) {
      for (const error of Value.Errors(PatternEntrySchema, entry)) problems.push(`${name}: ${error.path || "/"} ${error.message}`);
      return;
    }
    if (seen.has(entry.id)) {
      problems.push(`${name}: the id is used twice in this file`);
      return;
    }
    seen.add(entry.id);
    try {
      entries.push({ ...entry, weight: entry.weight ?? DEFAULT_WEIGHT, pattern: new RegExp(entry.regex, entry.flags ?? "") });
    } catch (error) {
      problems.push(`${name}: /regex is not a valid regular expression (${(error as Error).message})`);
    }
  });
  return { entries, problems };
}

/** Reads and checks an operator's pattern file; throws PatternFileError listing every bad entry. */
export function loadPatternFile(path: string): CompiledPattern[] {
  let table: unknown;
  try {
    table = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new PatternFileError(path, [`cannot be read as JSON: ${(error as Error).message}`]);
  }
  const { entries, problems } = checkPatternTable(table);
  if (problems.length > 0) throw new PatternFileError(path, problems);
  return entries;
}

let builtins: CompiledPattern[] | undefined;

/** The built-in table (compiled once; a broken built-in table is a bug, so it throws). */
export function builtinPatterns(): CompiledPattern[] {
  if (!builtins) {
    const { entries, problems } = checkPatternTable(builtinTable);
    if (problems.length > 0) throw new PatternFileError("src/logs/patterns.json", problems);
    builtins = entries;
  }
  return builtins;
}

/** The table to match with: the operator's entries first, then the built-ins they do not replace. */
export function patternTable(extra: readonly CompiledPattern[] = []): CompiledPattern[] {
  const replaced = new Set(extra.map((e) => e.id));
  return [...extra, ...builtinPatterns().filter((e) => !replaced.has(e.id))];
}

/** Fills `{n}` with capture group n and drops `[[…]]` segments whose groups are all empty. */
export function fillTemplate(template: string, groups: readonly (string | undefined)[]): string {
  const group = (n: string) => (groups[Number(n)] ?? "").trim();
  const optional = template.replace(/\[\[([\s\S]*?)\]\]/g, (_whole, inner: string) => {
    const refs = [...inner.matchAll(/\{(\d+)\}/g)].map((m) => group(m[1] as string));
    return refs.length > 0 && refs.every((r) => r === "") ? "" : inner;
  });
  return optional.replace(/\{(\d+)\}/g, (_whole, n: string) => group(n));
}
