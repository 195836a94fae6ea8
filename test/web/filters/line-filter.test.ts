import { describe, expect, it } from "bun:test";
import { linesMatching, MAX_SCAN_CHARS, removeMatchingLines } from "../../../src/web/filters/line-filter.ts";
import { compileLinePatterns } from "../../../src/web/filters/line-patterns.ts";

const patterns = (...sources: string[]) => compileLinePatterns("ignore_patterns", sources);

describe("removeMatchingLines", () => {
  it("removes matching lines, counts them by the first pattern that matched, and closes the gaps", () => {
    const text = "Rates\n\nUpdated 5 minutes ago\n\nEUR/USD 1.09\nSession 4f2a\nVisitors: 1,204\n\nFooter";
    const result = removeMatchingLines(text, patterns("^Updated \\d+ minutes ago$", "^Session [0-9a-f]+$", "\\d"), 20_000);
    expect(result.text).toBe("Rates\n\nFooter");
    expect(result.removed).toBe(4);
    expect(result.byPattern).toEqual([1, 1, 2]);
    expect(result.scanCut).toBe(false);
  });

  it("leaves no blank line at either end and none doubled", () => {
    expect(removeMatchingLines("noise 1\n\nbody\n\nnoise 2", patterns("^noise"), 100).text).toBe("body");
    expect(removeMatchingLines("a\n\nnoise\n\nb", patterns("^noise"), 100).text).toBe("a\n\nb");
  });

  it("filtering a filtered text changes nothing (a baseline from a filtered answer passes through as it is)", () => {
    const once = removeMatchingLines("a\n\nnoise 1\nb\n\n\nc\nnoise 2", patterns("^noise"), 100);
    const twice = removeMatchingLines(once.text, patterns("^noise"), 100);
    expect(twice.text).toBe(once.text);
    expect(twice.removed).toBe(0);
  });

  it("returns the text itself when nothing matched", () => {
    const text = "  indented markdown\n\n\n- item";
    expect(removeMatchingLines(text, patterns("^noise"), 100).text).toBe(text);
  });

  it("stops once more than keepChars are kept: lines past the cut are neither read nor counted", () => {
    const text = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? `keep ${i}` : `noise ${i}`)).join("\n");
    const result = removeMatchingLines(text, patterns("^noise"), 30);
    expect(result.text.startsWith("keep 0\nkeep 2\nkeep 4\nkeep 6")).toBe(true);
    expect(result.removed).toBeLessThan(10);
    expect([...result.text].length).toBeGreaterThan(30);
  });

  it("reads at most MAX_SCAN_CHARS and says so", () => {
    const text = `${"noise line\n".repeat(Math.ceil(MAX_SCAN_CHARS / 11) + 10)}kept`;
    const result = removeMatchingLines(text, patterns("^noise"), 60_000);
    expect(result.scanCut).toBe(true);
    expect(result.text).toBe("");
  });
});

describe("linesMatching", () => {
  it("keeps the lines any pattern matches, in order", () => {
    expect(linesMatching(["Price: 10", "Menu", "price: 12"], patterns("(?i)^price"))).toEqual(["Price: 10", "price: 12"]);
    expect(linesMatching(["a"], [])).toEqual([]);
  });
});
