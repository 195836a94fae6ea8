import { describe, expect, it } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { compileLinePatterns, compileRequestPatterns, firstMatch, MAX_PATTERN_CHARS, MAX_PATTERNS, MAX_PROGRAM_SIZE, MAX_TOTAL_PROGRAM_SIZE } from "../../../src/web/filters/line-patterns.ts";

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("PATTERN_INVALID");
    expect((error as ApiError).status).toBe(400);
    return error as ApiError;
  }
  throw new Error("expected PATTERN_INVALID");
}

describe("compileLinePatterns", () => {
  it("matches anywhere in a line, ^ and $ anchor, (?i) ignores case", () => {
    const patterns = compileLinePatterns("ignore_patterns", ["\\d{1,2}:\\d{2}", "^Session [0-9a-f]+$", "(?i)visitors"]);
    expect(firstMatch(patterns, "Updated at 10:32 today")).toBe(0);
    expect(firstMatch(patterns, "Session 9f3a")).toBe(1);
    expect(firstMatch(patterns, "Our Session 9f3a")).toBe(-1);
    expect(firstMatch(patterns, "1,204 VISITORS online")).toBe(2);
    expect(firstMatch(patterns, "Price: 12 EUR")).toBe(-1);
  });

  it("names the bad pattern and its place: syntax RE2 lacks, broken syntax", () => {
    for (const bad of ["(a)\\1", "(?=a)b", "(?<=a)b", "(unclosed", "a{2,1}"]) {
      const error = refusal(() => compileLinePatterns("trigger_patterns", ["fine", bad]));
      expect(error.message).toStartWith(`trigger_patterns[1] ${JSON.stringify(bad)}:`);
    }
  });

  it("refuses a pattern that matches the empty line (it would match every line)", () => {
    for (const bad of ["x*", "^.*$", "(a|)", "\\b?"]) {
      expect(refusal(() => compileLinePatterns("ignore_patterns", [bad])).message).toContain("matches the empty line");
    }
  });

  it("holds the limits: count, length, program size, and the size of a request's patterns together", () => {
    expect(refusal(() => compileLinePatterns("ignore_patterns", Array.from({ length: MAX_PATTERNS + 1 }, (_, i) => `p${i}`))).message).toContain(`at most ${MAX_PATTERNS}`);
    expect(refusal(() => compileLinePatterns("ignore_patterns", ["a".repeat(MAX_PATTERN_CHARS + 1)])).message).toContain(`longer than ${MAX_PATTERN_CHARS}`);
    expect(compileLinePatterns("ignore_patterns", ["a".repeat(MAX_PATTERN_CHARS)])).toHaveLength(1);
    expect(refusal(() => compileLinePatterns("ignore_patterns", ["[a-z]{1,1000}x"])).message).toContain(`at most ${MAX_PROGRAM_SIZE}`);
    // Each of these is under the per-pattern size; five of them are over the request's budget.
    const heavy = "[a-z]{1,200}x";
    expect(compileLinePatterns("ignore_patterns", [heavy])[0]!.regex.programSize()).toBeLessThanOrEqual(MAX_PROGRAM_SIZE);
    expect(refusal(() => compileRequestPatterns([heavy, heavy, heavy], [heavy, heavy])).message).toContain(`at most ${MAX_TOTAL_PROGRAM_SIZE}`);
    expect(compileRequestPatterns([heavy, heavy], [heavy, heavy]).trigger).toHaveLength(2);
  });

  it("answers for (a+)+$ on a 60,000-character line, which backtracking RegExp cannot (linear-time engine)", () => {
    const [pattern] = compileLinePatterns("ignore_patterns", ["(a+)+$"]);
    const line = `${"a".repeat(60_000)}!`;
    expect(firstMatch([pattern!], line)).toBe(-1);
    expect(firstMatch([pattern!], "a".repeat(60_000))).toBe(0);
  });
});
