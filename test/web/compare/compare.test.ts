import { describe, expect, it } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { ApiError, type ErrorCode } from "../../../src/errors.ts";
import { ComparisonSchema, compareText, diffLineSets } from "../../../src/web/compare/compare.ts";
import { SUMMARY_MAX_CHARS } from "../../../src/web/compare/compare-schema.ts";
import { countCodePoints, sha256Hex } from "../../../src/web/text/text-output.ts";

function expectApiError(run: () => unknown, code: ErrorCode): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(code);
    return error as ApiError;
  }
  throw new Error(`expected ApiError ${code}`);
}

const base = { diffSummary: false, maxChars: 20_000 } as const;

describe("compareText", () => {
  it("first snapshot: changed is null and the text is returned to keep", () => {
    const result = compareText({ ...base, currentText: "a\nb", diffSummary: true });
    expect(result.comparison).toEqual({
      changed: null,
      current_sha256: sha256Hex("a\nb"),
      summary: "First snapshot: no baseline to compare; keep text_sha256 or text as the baseline.",
    });
    expect(result.includeText).toBe(true);
    expect(Value.Check(ComparisonSchema, result.comparison)).toBe(true);
  });

  it("hash only: a compact check without lines, compared case-insensitively", () => {
    const upper = sha256Hex("same text").toUpperCase();
    const same = compareText({ ...base, currentText: "same text", previousSha256: upper });
    expect(same.comparison).toEqual({ changed: false, previous_sha256: upper.toLowerCase(), current_sha256: sha256Hex("same text") });
    expect(same.includeText).toBe(false);
    const other = compareText({ ...base, currentText: "new text", previousSha256: upper, diffSummary: true });
    expect(other.comparison.changed).toBe(true);
    expect(other.comparison).not.toHaveProperty("added");
    expect(other.comparison.summary).toStartWith("Changed: the text hash differs");
    expect(other.includeText).toBe(true);
    expect(Value.Check(ComparisonSchema, other.comparison)).toBe(true);
  });

  it("rejects a previous_sha256 that is not 64 hex characters", () => {
    expectApiError(() => compareText({ ...base, currentText: "x", previousSha256: "abc" }), "INVALID_REQUEST");
    expectApiError(() => compareText({ ...base, currentText: "x", previousSha256: `${"g".repeat(64)}` }), "INVALID_REQUEST");
  });

  it("previous_text: unique added and removed lines in order of appearance, duplicates once", () => {
    const previous = "Title\nkeep\nold 1\nold 2\nold 1\n\nkeep";
    const current = "Title\nnew B\nkeep\nnew A\nnew B\nnew A\nnew C";
    const { comparison, includeText } = compareText({ ...base, currentText: current, previousText: previous });
    expect(comparison).toEqual({
      changed: true,
      previous_sha256: sha256Hex(previous),
      current_sha256: sha256Hex(current),
      added: ["new B", "new A", "new C"],
      removed: ["old 1", "old 2"],
      added_lines: 3,
      removed_lines: 2,
    });
    expect(includeText).toBe(true);
    expect(Value.Check(ComparisonSchema, comparison)).toBe(true);
  });

  it("unchanged text: changed false, empty lists, text omitted", () => {
    const { comparison, includeText } = compareText({ ...base, currentText: "a\nb", previousText: "a\nb", diffSummary: true });
    expect(comparison.changed).toBe(false);
    expect(comparison.added).toEqual([]);
    expect(comparison.removed).toEqual([]);
    expect(comparison.summary).toBe("Unchanged: 0 line(s) added, 0 removed.");
    expect(includeText).toBe(false);
  });

  it("reorder only: changed, but no line added or removed", () => {
    const { comparison } = compareText({ ...base, currentText: "c\nb\na\na", previousText: "a\nb\nc", diffSummary: true });
    expect(comparison.changed).toBe(true);
    expect(comparison.added_lines).toBe(0);
    expect(comparison.removed_lines).toBe(0);
    expect(comparison.summary).toBe("Changed: 0 line(s) added, 0 removed (the same lines, reordered, repeated or re-spaced).");
  });

  it("both sent: they must match, else BASELINE_MISMATCH (400); case does not matter", () => {
    const previous = "line one\nline two";
    const ok = compareText({ ...base, currentText: "line one", previousText: previous, previousSha256: sha256Hex(previous).toUpperCase() });
    expect(ok.comparison.removed).toEqual(["line two"]);
    const error = expectApiError(
      () => compareText({ ...base, currentText: "line one", previousText: previous, previousSha256: sha256Hex("something else") }),
      "BASELINE_MISMATCH",
    );
    expect(error.status).toBe(400);
  });

  it("hashes previous_text as well-formed UTF-8, like returned text", () => {
    const { comparison } = compareText({ ...base, currentText: "x\ufffd", previousText: "x\ud800" });
    expect(comparison.changed).toBe(false);
  });

  it("warns when previous_text is longer than max_chars allows", () => {
    const previous = "a".repeat(1500);
    const warned = compareText({ ...base, maxChars: 1000, currentText: "a".repeat(1000), previousText: previous });
    expect(warned.warnings).toHaveLength(1);
    expect(warned.warnings[0]).toContain("max_chars (1000)");
    expect(compareText({ ...base, maxChars: 1500, currentText: "b", previousText: previous }).warnings).toEqual([]);
    // characters are code points: 1000 emoji are 2000 UTF-16 units but fit max_chars 1000
    expect(compareText({ ...base, maxChars: 1000, currentText: "b", previousText: "\u{1F600}".repeat(1000) }).warnings).toEqual([]);
  });

  it("echoes the selector", () => {
    expect(compareText({ ...base, currentText: "a", selector: "main" }).comparison.selector).toBe("main");
  });

  it("summary: one deterministic sentence with quoted lines", () => {
    const input = { ...base, diffSummary: true, currentText: 'Price: $12\nSay "hi"\nkeep', previousText: "Price: $10\nkeep" };
    const first = compareText(input).comparison.summary;
    expect(first).toBe('Changed: 2 line(s) added, 1 removed. Added: "Price: $12"; "Say \\"hi\\"". Removed: "Price: $10".');
    expect(compareText(input).comparison.summary).toBe(first);
    const onlyRemoved = compareText({ ...base, diffSummary: true, currentText: "keep", previousText: "keep\ngone" });
    expect(onlyRemoved.comparison.summary).toBe('Changed: 0 line(s) added, 1 removed. Removed: "gone".');
  });

  it("summary: capped at 2,000 characters, long lines cut, the rest counted", () => {
    const current = Array.from({ length: 300 }, (_, i) => `added line number ${i} ${"x".repeat(i % 7 === 0 ? 400 : 20)}`).join("\n");
    const previous = Array.from({ length: 200 }, (_, i) => `removed line ${i}`).join("\n");
    const { comparison } = compareText({ ...base, diffSummary: true, currentText: current, previousText: previous });
    const summary = comparison.summary ?? "";
    expect(countCodePoints(summary)).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(summary).toStartWith('Changed: 300 line(s) added, 200 removed. Added: "added line number 0 xxx');
    expect(summary).toContain('x…"; "added line number 1 ');
    expect(summary).toMatch(/; \+\d+ more\. Removed: "removed line 0"; /);
    expect(summary).toMatch(/; \+\d+ more\.$/);
    expect(Value.Check(ComparisonSchema, comparison)).toBe(true);
    // a short removed list is shown whole; added lines take the rest of the room
    const fewRemoved = compareText({ ...base, diffSummary: true, currentText: current, previousText: "gone" }).comparison.summary ?? "";
    expect(fewRemoved).toEndWith(' Removed: "gone".');
    expect(countCodePoints(fewRemoved)).toBeGreaterThan(1800);
    expect(countCodePoints(fewRemoved)).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
  });

  it("large input: completely different 60,000-character texts give every line, exactly", () => {
    const make = (tag: string): string[] => Array.from({ length: 1600 }, (_, i) => `${tag} ${String(i).padStart(4, "0")} ${"w".repeat(30)}`);
    const previousLines = make("old");
    const currentLines = make("new");
    const previous = previousLines.join("\n").slice(0, 60_000);
    const current = currentLines.join("\n").slice(0, 60_000);
    expect(previous.length).toBe(60_000);
    const { comparison } = compareText({ ...base, maxChars: 60_000, currentText: current, previousText: previous, diffSummary: true });
    expect(comparison.added).toEqual(current.split("\n").filter((line) => line !== ""));
    expect(comparison.removed).toEqual(previous.split("\n").filter((line) => line !== ""));
    expect(comparison.added_lines).toBe(1500);
    expect(countCodePoints(comparison.summary ?? "")).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
  });

  it("large input: reordered 60,000-character texts add and remove nothing", () => {
    const lines = Array.from({ length: 1500 }, (_, i) => `line ${i} ${"z".repeat(33)}`);
    const shuffled = lines.map((line, i) => lines[(i * 7919) % lines.length] ?? line);
    expect(new Set(shuffled).size).toBe(lines.length);
    const { added, removed } = diffLineSets(lines.join("\n"), shuffled.join("\n"));
    expect(added).toEqual([]);
    expect(removed).toEqual([]);
  });
});

describe("compareText with a trigger", () => {
  const trigger = (line: string) => line.startsWith("Price");

  it("is changed only when an added or removed line passes the trigger, and still returns a differing text", () => {
    const quiet = compareText({ ...base, currentText: "Kettle\nPrice 30\nUpdated 7", previousText: "Kettle\nPrice 30\nUpdated 5", trigger });
    expect(quiet.comparison).toMatchObject({ changed: false, added: ["Updated 7"], removed: ["Updated 5"], triggered: { added: [], removed: [] } });
    expect(quiet.includeText).toBe(true);
    const loud = compareText({ ...base, currentText: "Kettle\nPrice 28", previousText: "Kettle\nPrice 30", trigger });
    expect(loud.comparison).toMatchObject({ changed: true, triggered: { added: ["Price 28"], removed: ["Price 30"] } });
    expect(Value.Check(ComparisonSchema, loud.comparison)).toBe(true);
  });

  it("refuses a hash-only baseline: a hash cannot say which lines changed", () => {
    expectApiError(() => compareText({ ...base, currentText: "a", previousSha256: sha256Hex("b"), trigger }), "INVALID_REQUEST");
  });
});
