import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError, type ErrorCode } from "../../../src/errors.ts";
import { readPdf } from "../../../src/web/pdf/pdf.ts";
import { canonicalizePdfText } from "../../../src/web/pdf/pdf-text.ts";
import { loadMupdf } from "../../../src/web/pdf/pdf-wasm.ts";
import { countCodePoints, sha256Hex } from "../../../src/web/text/text-output.ts";

const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(import.meta.dir, "../../../test/fixtures/pdf", name)));

async function expectApiError(promise: Promise<unknown>, code: ErrorCode): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(code);
    return error as ApiError;
  }
  throw new Error(`expected ApiError ${code}, got a result`);
}

describe("readPdf", () => {
  it("returns page-numbered canonical text with hashes of the text and of the bytes", async () => {
    const bytes = fixture("multi-page.pdf");
    const pdf = await readPdf(bytes);
    expect(pdf.page_count).toBe(3);
    expect(pdf.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(pdf.pages[0]?.text).toBe("Quarterly report\nRevenue grew by 12 percent.\nSpaced out words");
    expect(pdf.pages[1]?.text).toBe("Second page\nCaf\u00e9 cr\u00e8me br\u00fbl\u00e9e costs 5 \u20ac.");
    for (const p of pdf.pages) {
      expect(p.characters).toBe(countCodePoints(p.text));
      expect(p).not.toHaveProperty("label");
    }
    expect(pdf.text).toBe(
      "--- page 1 ---\n\nQuarterly report\nRevenue grew by 12 percent.\nSpaced out words\n\n" +
        "--- page 2 ---\n\nSecond page\nCaf\u00e9 cr\u00e8me br\u00fbl\u00e9e costs 5 \u20ac.\n\n--- page 3 ---\n\nThird page\nThe end.",
    );
    expect(pdf.text_sha256).toBe(sha256Hex(pdf.text));
    expect(pdf.source_sha256).toBe(sha256Hex(bytes));
    expect(pdf.truncated).toBe(false);
    expect(pdf.empty_text_pages).toEqual([]);
    expect(pdf.unreadable_text_pages).toEqual([]);
    expect(pdf.ocr_performed).toBe(false);
    expect(pdf.warnings).toEqual([]);
    expect(Number.isInteger(pdf.extraction_ms)).toBe(true);
  });

  it("gives identical results for identical bytes", async () => {
    const a = await readPdf(fixture("multi-page.pdf"));
    const b = await readPdf(fixture("multi-page.pdf"));
    expect({ ...a, extraction_ms: 0 }).toEqual({ ...b, extraction_ms: 0 });
  });

  it("reads bytes that are a view into part of a larger buffer as it reads them alone", async () => {
    // mupdf is handed the whole ArrayBuffer when the bytes fill it, so a view must not hand over its neighbours:
    // here another PDF on each side, whose pages mupdf would find.
    const bytes = fixture("multi-page.pdf");
    const other = fixture("two-columns.pdf");
    const all = new Uint8Array(other.byteLength * 2 + bytes.byteLength);
    all.set(other, 0);
    all.set(bytes, other.byteLength);
    all.set(other, other.byteLength + bytes.byteLength);
    const view = all.subarray(other.byteLength, other.byteLength + bytes.byteLength);
    const a = await readPdf(bytes);
    const b = await readPdf(view);
    expect({ ...b, extraction_ms: 0 }).toEqual({ ...a, extraction_ms: 0 });
  });

  it("returns each page's /PageLabels label beside its physical number", async () => {
    const pdf = await readPdf(fixture("page-labels.pdf"));
    expect(pdf.pages.map((p) => [p.page, p.label])).toEqual([
      [1, "i"],
      [2, "ii"],
      [3, "1"],
      [4, "2"],
    ]);
  });

  it("lists and warns about pages without text", async () => {
    const pdf = await readPdf(fixture("blank-page.pdf"));
    expect(pdf.empty_text_pages).toEqual([2]);
    expect(pdf.pages[1]).toEqual({ page: 2, text: "", characters: 0 });
    expect(pdf.text).toBe("--- page 1 ---\n\nBefore the blank page\n\n--- page 2 ---\n\n--- page 3 ---\n\nAfter the blank page");
    expect(pdf.warnings).toHaveLength(1);
    expect(pdf.warnings[0]).toContain("page(s) 2 ");
    expect(pdf.warnings[0]).toContain("images may carry information");
  });

  it("keeps only the readable lines of a page that is mostly U+FFFD (font without a Unicode map), lists it and warns", async () => {
    const pdf = await readPdf(fixture("unmapped-font.pdf"));
    expect(pdf.page_count).toBe(3);
    expect(pdf.unreadable_text_pages).toEqual([2]);
    expect(pdf.empty_text_pages).toEqual([]);
    // Page 2's one readable line is "p. 2": no word, so nothing of the page is kept.
    expect(pdf.pages[1]).toEqual({ page: 2, text: "", characters: 0 });
    expect(pdf.pages[0]?.text).toBe("Readable first page");
    const page2 = pdf.warnings.find((w) => w.startsWith("Page 2:"));
    expect(page2).toContain("without a Unicode map");
    expect(page2).toContain("no line of it could be read");
    expect(page2).toContain("images may carry information");
    // A minority of unmapped glyphs keeps the page's text, U+FFFD marking where they were, with a warning.
    expect(pdf.pages[2]?.text).toBe("\uFFFD\uFFFD\uFFFD\uFFFD\n\nThird page keeps its readable text around one unreadable word.");
    expect(pdf.warnings.find((w) => w.startsWith("Page 3:"))).toContain("4 character(s)");
    expect(pdf.warnings).toHaveLength(2);
  });

  it("returns the heading, labels and footer of a mostly unreadable page, flagged, not empty", async () => {
    const pdf = await readPdf(fixture("mostly-unreadable.pdf"));
    expect(pdf.unreadable_text_pages).toEqual([1]);
    expect(pdf.empty_text_pages).toEqual([]);
    expect(pdf.pages[0]?.text).toBe("Quarterly Report 2024\n\nPrepared by: \uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\n\nPage 1 of 1 - Example Corp");
    expect(pdf.warnings[0]).toContain("only its readable lines are returned");
  });

  it("reads a line drawn twice over itself (fake bold) once, and keeps real double letters", async () => {
    const pdf = await readPdf(fixture("fake-bold.pdf"));
    expect(pdf.pages[0]?.text).toBe("Bold heading\n\nEmphasised line drawn twice\n\nCommittee bookkeeper: three lls, ss and ee stay.");
  });

  it("keeps text a clip path hides (a cell's overflow) or the crop box, and drops text beyond the media box", async () => {
    const pdf = await readPdf(fixture("clipped-text.pdf"));
    const text = pdf.pages[0]?.text ?? "";
    expect(text).toContain("Visible body text of the page.");
    expect(text).toContain("Chq. No. 085900 BILL NO. 133, 132, 139, 138, 143, 140, 142");
    expect(text).not.toContain("beyond the media box");
    expect(text).toContain("Proof slug: Page 1 of 48, 7:48 - 6-DEC-2007");
  });

  it("reads a column of vertical writing as one line, not a line per glyph", async () => {
    const pdf = await readPdf(fixture("vertical-japanese.pdf"));
    expect(pdf.pages[0]?.text).toBe("縦書きの本文です\n二列目も読みます");
  });

  it("puts back the spaces mupdf leaves out between words drawn apart in scripts it does not space (Korean), and adds none to Japanese", async () => {
    const pdf = await readPdf(fixture("korean-words.pdf"));
    expect(pdf.pages[0]?.text).toBe("침하게 흐린 품이 눈이 올 듯하더니\n\n눈은 아니 오고 2023년\n\n日本語の文章");
  });

  it("maps non-embedded ZapfDingbats glyphs to their symbols and keeps Symbol's Greek", async () => {
    const pdf = await readPdf(fixture("symbol-fonts.pdf"));
    expect(pdf.pages[0]?.text).toBe("Angle \u03b1 and ratio \u03c0\n\n\u2714 Approved\n\n\u25cf First point\n\n\u2605 Rated item");
  });

  it("maps ZapfDingbats glyphs whose font sits in a compressed object stream, bullets on a page without check marks too", async () => {
    const bytes = fixture("dingbats-object-streams.pdf");
    expect(Buffer.from(bytes).includes("Dingbats")).toBe(false);
    const pdf = await readPdf(bytes);
    expect(pdf.pages.map((p) => p.text)).toEqual(["\u2714 Approved", "\u25cf First point\n\n\u25a0 Second point"]);
  });

  it("leaves out a figure's ActualText, which draws no glyph, as poppler does", async () => {
    const pdf = await readPdf(fixture("figure-actual-text.pdf"));
    expect(pdf.pages[0]?.text).toBe("Before the figure.\n\nAfter the figure.");
  });

  it("keeps an Arabic lam-alef ligature's letters in logical order (lam, then alef)", async () => {
    const pdf = await readPdf(fixture("arabic-lam-alef.pdf"));
    expect(pdf.pages[0]?.text).toBe("\u0639\u0627\u0644\u0645 \u0633\u0644\u0627\u0645");
    expect(pdf.pages[0]?.text).not.toMatch(/[\uFB50-\uFDFF\uFE70-\uFEFE]/);
  });

  it("puts right-to-left lines in logical order: digits, punctuation, brackets and Latin words in their places, marks on their letters", async () => {
    const pdf = await readPdf(fixture("right-to-left-mixed.pdf"));
    expect(pdf.pages[0]?.text.split("\n\n")).toEqual([
      "שלום, עולם 123.",
      "שלום 2024 עולם",
      "סעיף (5) לחוק",
      "גרסה PDF 1.7 כאן",
      "عام 2024.",
      "السّيّدة",
    ]);
  });

  it("fails PDF_NO_TEXT when every page is unreadable text", async () => {
    const error = await expectApiError(readPdf(fixture("unmapped-only.pdf")), "PDF_NO_TEXT");
    expect(error.message).toContain("page(s) 1 use fonts without a Unicode map");
  });

  it("includes text drawn by form widgets' appearances", async () => {
    const pdf = await readPdf(fixture("widget-text.pdf"));
    expect(pdf.pages[0]?.text).toBe("Application form\n\nJane Q. Applicant");
  });

  it("reads a page whose only annotation is a link as its display list reads, without the link's appearance", async () => {
    // readPdf reads such a page straight from its contents (mupdf neither loads links as annotations nor draws
    // them); if a mupdf upgrade drew them, the display list would hold the caption and this would fail.
    const bytes = fixture("link-only.pdf");
    const mupdf = await loadMupdf();
    const doc = mupdf.Document.openDocument(bytes, "application/pdf");
    const page = doc.loadPage(0);
    const list = page.toDisplayList(true);
    const stext = list.toStructuredText("");
    const listed = canonicalizePdfText(stext.asText());
    expect(page.getLinks().length).toBe(1);
    for (const handle of [stext, list, page, doc]) handle.destroy();
    const pdf = await readPdf(bytes);
    expect(pdf.pages[0]?.text).toBe(listed);
    expect(pdf.pages[0]?.text).toBe("Read the terms online.");
  });

  it("reads pages with markup annotations as their display lists read, with the text annotations draw", async () => {
    // Page 1's highlight, ink and square draw no glyph, so readPdf reads the page from its contents alone; page 2's
    // FreeText note draws text, so that page goes through its display list.
    const bytes = fixture("markup-annotations.pdf");
    const mupdf = await loadMupdf();
    const doc = mupdf.Document.openDocument(bytes, "application/pdf");
    const listed: string[] = [];
    for (let index = 0; index < 2; index++) {
      const page = doc.loadPage(index);
      const list = page.toDisplayList(true);
      const stext = list.toStructuredText("");
      listed.push(canonicalizePdfText(stext.asText()));
      for (const handle of [stext, list, page]) handle.destroy();
    }
    doc.destroy();
    const pdf = await readPdf(bytes);
    expect(pdf.pages.map((p) => p.text)).toEqual(listed);
    expect(pdf.pages[0]?.text).toBe("Reviewed draft\nThe totals in table 2 were checked twice.");
    expect(pdf.pages[1]?.text).toBe("Second page\nFigures are in thousands.\n\nReviewer: see the appendix");
  });

  it("truncates by code point at 100,000 characters, marks it and warns", async () => {
    const pdf = await readPdf(fixture("long-text.pdf"));
    expect(pdf.page_count).toBe(20);
    expect(pdf.truncated).toBe(true);
    const chars = countCodePoints(pdf.text);
    expect(chars).toBeLessThanOrEqual(100_000);
    expect(chars).toBeGreaterThan(90_000);
    expect(pdf.text_sha256).toBe(sha256Hex(pdf.text));
    expect(pdf.pages.length).toBeLessThan(20);
    expect(pdf.warnings.some((w) => w.includes("truncated to 100000 characters"))).toBe(true);
    const full = await readPdf(fixture("long-text.pdf"), { maxChars: 1_000_000 });
    expect(full.truncated).toBe(false);
    const last = pdf.pages[pdf.pages.length - 1];
    const sameInFull = full.pages.find((p) => p.page === last?.page);
    expect(sameInFull?.text.startsWith(last?.text ?? "?")).toBe(true);
    expect(full.text.startsWith(pdf.text)).toBe(true);
  });

  it("honours a smaller maxChars, markers included", async () => {
    const pdf = await readPdf(fixture("multi-page.pdf"), { maxChars: 40 });
    expect(pdf.truncated).toBe(true);
    expect(countCodePoints(pdf.text)).toBeLessThanOrEqual(40);
    expect(pdf.text).toBe("--- page 1 ---\n\nQuarterly report\nRevenue");
    expect(pdf.pages).toEqual([{ page: 1, text: "Quarterly report\nRevenue", characters: 24 }]);
  });

  it("reports a repaired file with a warning", async () => {
    const pdf = await readPdf(fixture("broken-xref.pdf"));
    expect(pdf.pages[0]?.text).toBe("Repaired text");
    expect(pdf.warnings.some((w) => w.includes("repaired"))).toBe(true);
    const cut = await readPdf(fixture("truncated-repaired.pdf"));
    expect(cut.page_count).toBe(4);
    expect(cut.pages[0]?.text).toContain("Page 1 line 1");
    expect(cut.empty_text_pages).toEqual([2, 3, 4]);
  });

  it("fails PDF_TOO_LARGE over 5 MiB, before parsing", async () => {
    const small = fixture("multi-page.pdf");
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(small);
    big.fill(0x20, small.length);
    const error = await expectApiError(readPdf(big), "PDF_TOO_LARGE");
    expect(error.status).toBe(422);
    await expectApiError(readPdf(small, { maxBytes: small.length - 1 }), "PDF_TOO_LARGE");
    expect((await readPdf(small, { maxBytes: small.length })).page_count).toBe(3);
  });

  it("fails PDF_TOO_MANY_PAGES over 20 pages", async () => {
    const error = await expectApiError(readPdf(fixture("too-many-pages.pdf")), "PDF_TOO_MANY_PAGES");
    expect(error.details).toEqual({ page_count: 21, max_pages: 20 });
    await expectApiError(readPdf(fixture("multi-page.pdf"), { maxPages: 2 }), "PDF_TOO_MANY_PAGES");
    expect((await readPdf(fixture("too-many-pages.pdf"), { maxPages: 21 })).page_count).toBe(21);
  });

  it("fails NOT_A_PDF on HTML and ZIP bytes named .pdf, by their missing %PDF- header", async () => {
    for (const name of ["html.pdf", "zip.pdf"]) {
      const error = await expectApiError(readPdf(fixture(name)), "NOT_A_PDF");
      expect(error.message).toContain("no %PDF- header");
    }
    await expectApiError(readPdf(new Uint8Array()), "NOT_A_PDF");
  });

  it("accepts junk before a %PDF- header within the first 1024 bytes", async () => {
    const pdf = fixture("multi-page.pdf");
    const prefixed = (n: number): Uint8Array => {
      const out = new Uint8Array(n + pdf.length);
      out.fill(0x0a, 0, n);
      out.set(pdf, n);
      return out;
    };
    expect((await readPdf(prefixed(1000))).pages[2]?.text).toBe("Third page\nThe end.");
    await expectApiError(readPdf(prefixed(1020)), "NOT_A_PDF");
  });

  it("fails PDF_UNREADABLE when broken beyond repair or without pages", async () => {
    await expectApiError(readPdf(fixture("garbage.pdf")), "PDF_UNREADABLE");
    await expectApiError(readPdf(fixture("truncated-no-pages.pdf")), "PDF_UNREADABLE");
  });

  it("fails PDF_ENCRYPTED when a user password is needed to open the file", async () => {
    const user = await expectApiError(readPdf(fixture("encrypted-user.pdf")), "PDF_ENCRYPTED");
    expect(user.message).toContain("password");
  });

  it("reads a PDF with only an owner password (it opens without one) and warns, naming the restrictions", async () => {
    const owner = await readPdf(fixture("encrypted-owner.pdf"));
    expect(owner.pages[0]?.text).toBe("Confidential text");
    expect(owner.warnings).toEqual(["The PDF is encrypted with an owner password only: it opens without a password and was read."]);
    const restricted = await readPdf(fixture("encrypted-owner-restricted.pdf"));
    expect(restricted.pages[0]?.text).toBe("Confidential text");
    expect(restricted.warnings).toEqual([
      "The PDF is encrypted with an owner password only: it opens without a password and was read; its permissions disallow: copy, edit.",
    ]);
  });

  it("fails PDF_NO_TEXT when no page has embedded text", async () => {
    const error = await expectApiError(readPdf(fixture("no-text.pdf")), "PDF_NO_TEXT");
    expect(error.message).toContain("2 page(s)");
  });
});
