/**
 * @module web/filters/line-filter — removes the lines that match ignore_patterns from a text or Markdown.
 *
 * Each line is tested trimmed, as web/changes compares lines. A blank line left redundant by a removal
 * (two blank lines in a row, or one at either end) goes with it, so filtering a filtered text changes
 * nothing: a caller's baseline taken from a filtered answer passes through the filter unchanged.
 */
import { countCodePoints } from "../text/text-output.ts";
import { firstMatch, type LinePattern } from "./line-patterns.ts";

/** Characters of text read at most while looking for max_chars of kept lines (4 × the largest max_chars). */
export const MAX_SCAN_CHARS = 240_000;

export interface FilteredLines {
  text: string;
  /** Lines removed, in all and by the pattern that matched first (in the order of the patterns). */
  removed: number;
  byPattern: number[];
  /** True when MAX_SCAN_CHARS were read before `keepChars` were kept: the text stops there. */
  scanCut: boolean;
}

/**
 * Drops the lines matching any pattern. Stops reading once more than `keepChars` code points are kept
 * (the caller cuts at keepChars anyway), so the work is bounded by what is returned plus what is removed,
 * and by MAX_SCAN_CHARS.
 * @example removeMatchingLines("Price: 10\nUpdated 10:32", [compiled("^Updated")], 20000)
 *   // { text: "Price: 10", removed: 1, byPattern: [1], scanCut: false }
 */
export function removeMatchingLines(text: string, patterns: readonly LinePattern[], keepChars: number): FilteredLines {
  const byPattern = patterns.map(() => 0);
  if (patterns.length === 0) return { text, removed: 0, byPattern, scanCut: false };
  const out: string[] = [];
  let removed = 0;
  let kept = 0;
  let scanned = 0;
  let justRemoved = false;
  let scanCut = false;
  for (let start = 0; start <= text.length && kept <= keepChars; ) {
    if (scanned > MAX_SCAN_CHARS) {
      scanCut = true;
      break;
    }
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    scanned += line.length + 1;
    start = end + 1;
    const trimmed = line.trim();
    if (trimmed === "") {
      if (justRemoved && (out.length === 0 || (out[out.length - 1] as string).trim() === "")) continue;
      out.push(line);
      continue;
    }
    const match = firstMatch(patterns, trimmed);
    if (match >= 0) {
      removed++;
      byPattern[match] = (byPattern[match] as number) + 1;
      justRemoved = true;
      continue;
    }
    justRemoved = false;
    out.push(line);
    kept += countCodePoints(line) + 1;
  }
  if (removed === 0 && !scanCut && kept <= keepChars) return { text, removed, byPattern, scanCut };
  while (out.length > 0 && (out[out.length - 1] as string).trim() === "") out.pop();
  return { text: out.join("\n"), removed, byPattern, scanCut };
}

/** The lines of `lines` that match any pattern, in order. */
export function linesMatching(lines: readonly string[], patterns: readonly LinePattern[]): string[] {
  if (patterns.length === 0) return [];
  return lines.filter((line) => firstMatch(patterns, line) >= 0);
}
