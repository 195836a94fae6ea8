import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readPdf } from "../../../src/web/pdf/pdf.ts";
import { readPageText } from "../../../src/web/pdf/pdf-page-text.ts";
import { loadMupdf } from "../../../src/web/pdf/pdf-wasm.ts";

// Fixtures from scripts/bench/pdf-fixtures.ts; the column pages are drawn row by row across their columns and
// their full-width lines last, so mupdf's own text (asText) interleaves the columns and puts the title last.
const FIXTURES = join(import.meta.dir, "../../../test/fixtures/pdf");
const COLUMN_FIXTURES = new Set(["two-columns.pdf", "three-columns.pdf"]);
// A line drawn twice over itself, read once (readPdf's tests hold the text).
const OVERSTRUCK_FIXTURES = new Set(["fake-bold.pdf"]);
// Vertical writing, whose glyphs mupdf writes a line each (readPdf's tests hold the text).
const VERTICAL_FIXTURES = new Set(["vertical-japanese.pdf"]);
// Korean words drawn apart without space glyphs, which mupdf runs together (readPdf's tests hold the text).
const KOREAN_FIXTURES = new Set(["korean-words.pdf"]);
// Right-to-left lines drawn in visual order, which mupdf reverses only in part (readPdf's tests hold the text).
const RIGHT_TO_LEFT_FIXTURES = new Set(["right-to-left-mixed.pdf"]);
// A figure's ActualText, which mupdf writes as a line of no area (readPdf's tests hold the text).
const FIGURE_FIXTURES = new Set(["figure-actual-text.pdf"]);
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(FIXTURES, name)));
const sentences = (name: string, from: number, to: number, tail: string): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${name} ${from + i}: ${tail}`);
const nonBlank = (text: string | undefined): string[] => (text ?? "").split("\n").filter((l) => l !== "");

/** Each page's [asText, readPageText] with the service's structured-text path (display list with annotations). */
async function readBoth(bytes: Uint8Array): Promise<[string, string][]> {
  const mupdf = await loadMupdf();
  const doc = mupdf.Document.openDocument(bytes, "application/pdf");
  const out: [string, string][] = [];
  try {
    for (let i = 0; i < doc.countPages(); i++) {
      const page = doc.loadPage(i);
      const list = page.toDisplayList(true);
      const stext = list.toStructuredText("");
      out.push([stext.asText(), readPageText(stext), readPageText(stext, { dingbats: "page" })] as never);
      stext.destroy();
      list.destroy();
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
  return out;
}

describe("readPageText", () => {
  it("reads the same text glyph by glyph as from mupdf's lines, on every fixture that has text", async () => {
    const names = readdirSync(FIXTURES).filter((n) => n.endsWith(".pdf") && !["symbol-fonts.pdf", "dingbats-object-streams.pdf"].includes(n));
    let pages = 0;
    for (const name of names) {
      let read: string[][];
      try {
        read = (await readBoth(fixture(name))) as unknown as string[][];
      } catch {
        continue; // not a PDF, encrypted or broken: readPdf's tests cover those
      }
      for (const [, byLines, byGlyphs] of read) {
        expect(byGlyphs).toBe(byLines as string);
        pages++;
      }
    }
    expect(pages).toBeGreaterThan(40);
  });

  it("reads two columns one after the other, the full-width title first", async () => {
    const pdf = await readPdf(fixture("two-columns.pdf"));
    expect(nonBlank(pdf.pages[0]?.text)).toEqual([
      "Harbour report: tides and ferries for the whole week",
      ...sentences("Left", 1, 8, "the tide comes in at dawn."),
      ...sentences("Right", 1, 8, "the ferry leaves at noon."),
    ]);
    expect(pdf.pages[0]?.text).toContain("Left 8: the tide comes in at dawn.\n\nRight 1:");
  });

  it("reads three columns band by band around a full-width heading, a rotated margin note last", async () => {
    const pdf = await readPdf(fixture("three-columns.pdf"));
    const valleys = ["West", "Centre", "East"];
    expect(nonBlank(pdf.pages[0]?.text)).toEqual([
      "Weather across the three valleys, week twelve",
      ...valleys.flatMap((v) => sentences(v, 1, 4, "rain falls on the hills.")),
      "Outlook for the second half of the week, from Thursday to Sunday",
      ...valleys.flatMap((v) => sentences(v, 5, 8, "wind turns to the north.")),
      "Printed for the valley councils",
    ]);
  });

  it("fixes what mupdf's own text gets wrong on those pages (interleaved columns, title last)", async () => {
    const [[raw]] = (await readBoth(fixture("two-columns.pdf"))) as [[string, string]];
    expect(nonBlank(raw).slice(0, 2)).toEqual(["Left 1: the tide comes in at dawn.", "Right 1: the ferry leaves at noon."]);
    expect(nonBlank(raw).at(-1)).toBe("Harbour report: tides and ferries for the whole week");
  });

  it("keeps the rows of a table drawn the same way", async () => {
    const pdf = await readPdf(fixture("table-rows.pdf"));
    expect(nonBlank(pdf.pages[0]?.text).slice(0, 5)).toEqual([
      "Applicant details",
      "Name",
      "Jane Q. Applicant of the northern district",
      "Filing status",
      "Married filing separately for the year",
    ]);
  });

  it("leaves every page of the other fixtures exactly as mupdf writes it", async () => {
    let pages = 0;
    for (const name of readdirSync(FIXTURES).sort()) {
      if ([COLUMN_FIXTURES, OVERSTRUCK_FIXTURES, VERTICAL_FIXTURES, KOREAN_FIXTURES, RIGHT_TO_LEFT_FIXTURES, FIGURE_FIXTURES].some((set) => set.has(name))) continue;
      const bytes = fixture(name);
      let both: [string, string][];
      try {
        both = await readBoth(bytes);
      } catch {
        continue; // not a PDF, password-protected or broken: readPdf refuses those before any page text
      }
      for (const [raw, text] of both) {
        expect(text).toBe(raw);
        pages++;
      }
    }
    expect(pages).toBeGreaterThan(50);
  });
});
