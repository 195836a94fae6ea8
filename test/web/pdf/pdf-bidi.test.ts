import { describe, expect, it } from "bun:test";
import { logicalLine } from "../../../src/web/pdf/pdf-bidi.ts";

/** Glyphs 10 units wide, each at the place `visual` (the line as it stands on the page, left to right) gives it. */
function placed(visual: string, order: "mupdf" | "page"): [string[], number[], number[]] {
  const glyphs = [...visual].map((c, i) => ({ c, start: i * 10 }));
  // mupdf hands a right-to-left line over from its first right-to-left glyph to its end reversed.
  const first = glyphs.findIndex((g) => /\p{Script=Hebrew}/u.test(g.c));
  const walked = order === "page" || first < 0 ? glyphs : [...glyphs.slice(0, first), ...glyphs.slice(first).reverse()];
  return [walked.map((g) => g.c), walked.map((g) => g.start), walked.map((g) => g.start + 10)];
}

describe("logicalLine", () => {
  it("reorders a right-to-left line with digits and punctuation from where its glyphs stand", () => {
    expect(logicalLine(...placed(".123 םלוע ,םולש", "mupdf"))).toBe("שלום, עולם 123.");
    expect(logicalLine(...placed("םלוע 2024 םולש", "mupdf"))).toBe("שלום 2024 עולם");
  });

  it("keeps a left-to-right line with a Hebrew word left to right", () => {
    expect(logicalLine(...placed("See םולש here", "mupdf"))).toBe("See שלום here");
  });

  it("keeps mupdf's order where it did not reverse the right-to-left letters (an ActualText's characters, set left to right)", () => {
    expect(logicalLine(...placed("שלום עולם", "page"))).toBe("שלום עולם");
  });
});
