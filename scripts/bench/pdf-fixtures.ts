/**
 * Writes the small PDF fixtures of test/fixtures/pdf/ (run once, commit the output):
 *   bun scripts/bench/pdf-fixtures.ts [outDir]
 * Built with mupdf itself: Helvetica text pages, /PageLabels, a blank page, pages with only vector graphics
 * (image-only equivalent), user- and owner-password encryption, a truncated file, a damaged xref that mupdf
 * repairs, an HTML page and a ZIP named .pdf, 21 pages, 20 pages of about 120,000 characters, pages set in a font
 * without a Unicode map (a Type0 font whose /ToUnicode is removed: mupdf reads U+FFFD), a form widget whose
 * appearance carries text, a link annotation whose appearance stream draws text (mupdf never draws links), markup
 * annotations whose appearances draw no text (and a FreeText note whose appearance does), and two- and three-column pages drawn row by row across their columns (as the IRS
 * booklet of bench d16 is), so that mupdf's blocks span the columns and interleave their lines, and a table of
 * short labels and longer values drawn the same way, whose rows must stay rows; text hidden by a clip path or
 * outside the crop box, and text beyond the media box; Japanese in vertical writing mode; Korean words placed one by one without space glyphs;
 * right-to-left lines mixed with digits, punctuation and Latin, drawn in visual order; ZapfDingbats in object streams;
 * and a figure's ActualText, which draws no glyph.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import type { PDFDocument } from "mupdf";
import { loadMupdf } from "../../src/web/pdf/pdf-wasm.ts";
import { addMarkup } from "./pdf-markup.ts";

const outDir = process.argv[2] ?? join(import.meta.dir, "../../test/fixtures/pdf");
mkdirSync(outDir, { recursive: true });
const mupdf = await loadMupdf();

const WIN_ANSI_EXTRA: Record<string, number> = { "\u20ac": 0x80, "\u2019": 0x92, "\u201c": 0x93, "\u201d": 0x94 };

/** PDF literal string: WinAnsi bytes as octal escapes for anything outside printable ASCII. */
function pdfString(text: string): string {
  let out = "(";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0x3f;
    if (ch === "(" || ch === ")" || ch === "\\") out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else out += `\\${(WIN_ANSI_EXTRA[ch] ?? (code <= 0xff ? code : 0x3f)).toString(8).padStart(3, "0")}`;
  }
  return `${out})`;
}

function textContent(lines: readonly string[]): string {
  const ops = ["BT", "/F1 11 Tf", "14 TL", "56 770 Td"];
  for (const line of lines) ops.push(`${pdfString(line)} '`);
  ops.push("ET");
  return ops.join("\n");
}

const GRAPHICS_ONLY = "0.2 0.4 0.8 rg 72 500 300 200 re f 0 0 0 RG 4 w 72 300 m 500 450 l S";

/** Appends a page: `unmapped` in a Type0 font stripped of /ToUnicode, then `readable` in Helvetica below it. */
function addUnmappedPage(doc: PDFDocument, unmapped: string, readable: string): void {
  const cid = new mupdf.Font("Times-Roman");
  const cidRef = doc.addFont(cid);
  cidRef.delete("ToUnicode");
  const helvetica = new mupdf.Font("Helvetica");
  const helveticaRef = doc.addSimpleFont(helvetica, "Latin");
  const glyphs = [...unmapped].map((c) => cid.encodeCharacter(c.codePointAt(0) ?? 0x3f).toString(16).padStart(4, "0")).join("");
  const resources = doc.addObject({ Font: { C1: cidRef, F1: helveticaRef } });
  const page = doc.addPage([0, 0, 595, 842], 0, resources, `BT /C1 14 Tf 56 770 Td <${glyphs}> Tj ET\n${textContent([readable]).replace("56 770 Td", "56 740 Td")}`);
  doc.insertPage(-1, page);
  for (const o of [page, resources, helveticaRef, cidRef]) o.destroy();
  helvetica.destroy();
  cid.destroy();
}

/** A 300 x 24 appearance stream drawing `content` in the page's font F1 (for a widget or a link over a line). */
function textAppearance(doc: PDFDocument, pageObj: ReturnType<PDFDocument["findPage"]>, content: string) {
  const font = pageObj.get("Resources").get("Font").get("F1");
  return doc.addStream(content, { Type: "XObject", Subtype: "Form", BBox: [0, 0, 300, 24], Resources: { Font: { F1: font } } });
}

/** Adds a text field to page `index` whose value appears only through the widget's /AP appearance stream. */
function addFieldWidget(doc: PDFDocument, index: number, value: string): void {
  const pageObj = doc.findPage(index);
  const appearance = textAppearance(doc, pageObj, `/Tx BMC BT /F1 12 Tf 2 6 Td ${pdfString(value)} Tj ET EMC`);
  const widget = doc.addObject({
    Type: "Annot",
    Subtype: "Widget",
    FT: "Tx",
    T: "applicant",
    V: value,
    F: 4,
    Rect: [56, 700, 356, 724],
    AP: { N: appearance },
    P: pageObj,
  });
  const annots = doc.newArray();
  annots.push(widget);
  pageObj.put("Annots", annots);
  doc.getTrailer().get("Root").put("AcroForm", doc.newDictionary());
  doc.getTrailer().get("Root").get("AcroForm").put("Fields", annots);
}

/** Adds a link (a URI action) over page `index`'s first line, with an appearance stream that draws `caption`. */
function addLink(doc: PDFDocument, index: number, caption: string): void {
  const pageObj = doc.findPage(index);
  const appearance = textAppearance(doc, pageObj, `BT /F1 12 Tf 2 6 Td ${pdfString(caption)} Tj ET`);
  const link = doc.addObject({
    Type: "Annot",
    Subtype: "Link",
    Rect: [56, 700, 356, 724],
    Border: [0, 0, 0],
    A: { S: "URI", URI: "https://example.com/terms" },
    AP: { N: appearance },
  });
  const annots = doc.newArray();
  annots.push(link);
  pageObj.put("Annots", annots);
}

function buildDocument(pages: readonly string[], setup?: (doc: PDFDocument) => void): PDFDocument {
  const doc = new mupdf.PDFDocument();
  const font = new mupdf.Font("Helvetica");
  const fontRef = doc.addSimpleFont(font, "Latin");
  for (const contents of pages) {
    const resources = doc.addObject({ Font: { F1: fontRef } });
    const page = doc.addPage([0, 0, 595, 842], 0, resources, contents);
    doc.insertPage(-1, page);
    page.destroy();
    resources.destroy();
  }
  fontRef.destroy();
  font.destroy();
  setup?.(doc);
  return doc;
}

function save(name: string, doc: PDFDocument, options = "compress"): Uint8Array {
  const buffer = doc.saveToBuffer(options);
  const bytes = buffer.asUint8Array().slice();
  buffer.destroy();
  doc.destroy();
  writeFileSync(join(outDir, name), bytes);
  return bytes;
}

/** One line of text at an absolute position (x, y from the bottom-left corner, in points). */
function textAt(x: number, y: number, size: number, text: string): string {
  return `BT /F1 ${size} Tf 1 0 0 1 ${x} ${y} Tm ${pdfString(text)} Tj ET`;
}

/** One line of text turned 90 degrees anticlockwise (reading upwards), as margin notes are. */
function upwardTextAt(x: number, y: number, size: number, text: string): string {
  return `BT /F1 ${size} Tf 0 1 -1 0 ${x} ${y} Tm ${pdfString(text)} Tj ET`;
}

/** Sentences of a column, one per line: `${name} ${n}` opens each, so a test can find them. */
const columnSentences = (name: string, from: number, to: number, tail: string): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${name} ${from + i}: ${tail}`);

interface ColumnBand {
  /** Each column's lines, drawn row by row across the columns. */
  columns: string[][];
  /** The band's first baseline. */
  top: number;
}

/**
 * A page of columns in bands, drawn row by row across the columns (each column's baseline shifted by `stagger`
 * points more than the last, as independent text flows are); full-width lines (a title, a heading between
 * bands) are drawn after everything else, so only their position says where they belong.
 */
function columnsPage(options: {
  size: number;
  leading: number;
  left: number;
  columnWidth: number;
  gutter: number;
  stagger: number;
  bands: ColumnBand[];
  fullWidth: { y: number; size: number; text: string }[];
}): string {
  const ops: string[] = [];
  for (const band of options.bands) {
    const rows = Math.max(...band.columns.map((c) => c.length));
    for (let row = 0; row < rows; row++) {
      band.columns.forEach((column, k) => {
        const line = column[row];
        const x = options.left + k * (options.columnWidth + options.gutter);
        if (line !== undefined) ops.push(textAt(x, band.top - row * options.leading - k * options.stagger, options.size, line));
      });
    }
  }
  for (const line of options.fullWidth) ops.push(textAt(options.left, line.y, line.size, line.text));
  return ops.join("\n");
}

const paragraph = (page: number, lines: number, width = 60): string[] =>
  Array.from({ length: lines }, (_, i) => `Page ${page} line ${i + 1}: ${"lorem ipsum dolor sit amet ".repeat(8).slice(0, width)}`);

// Three text pages, one with accented WinAnsi characters and irregular spacing.
save(
  "multi-page.pdf",
  buildDocument([
    textContent(["Quarterly report", "Revenue grew by 12 percent.", "   Spaced    out   words   "]),
    textContent(["Second page", "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e costs 5 \u20ac."]),
    textContent(["Third page", "The end."]),
  ]),
);

// Front matter numbered i, ii; body numbered 1, 2 (/PageLabels).
save(
  "page-labels.pdf",
  buildDocument(
    [textContent(["Title page"]), textContent(["Contents"]), textContent(["Chapter one"]), textContent(["Chapter two"])],
    (doc) => {
      doc.setPageLabels(0, "r", "", 1);
      doc.setPageLabels(2, "D", "", 1);
    },
  ),
);

save("blank-page.pdf", buildDocument([textContent(["Before the blank page"]), "", textContent(["After the blank page"])]));

save("no-text.pdf", buildDocument([GRAPHICS_ONLY, GRAPHICS_ONLY]));

const secret = [textContent(["Confidential text"])];
save("encrypted-user.pdf", buildDocument(secret), "encrypt=aes-256,user-password=user,owner-password=owner");
save("encrypted-owner.pdf", buildDocument(secret), "encrypt=aes-128,owner-password=owner,permissions=-4");
// Owner password only, with copying (bit 5) and editing (bit 4) disallowed.
save("encrypted-owner-restricted.pdf", buildDocument(secret), "encrypt=aes-128,owner-password=owner,permissions=-28");

// Page 1 readable; page 2 set almost entirely in a font without a Unicode map; page 3 readable with one such word.
save(
  "unmapped-font.pdf",
  buildDocument([textContent(["Readable first page"])], (doc) => {
    addUnmappedPage(doc, "Unmapped glyphs on this page", "p. 2");
    addUnmappedPage(doc, "Gone", "Third page keeps its readable text around one unreadable word.");
  }),
);
save("unmapped-only.pdf", buildDocument([], (doc) => addUnmappedPage(doc, "Nothing here can be read", "")));

// A text field whose value is drawn by its widget's appearance stream, not by the page contents.
save("widget-text.pdf", buildDocument([textContent(["Application form"])], (doc) => addFieldWidget(doc, 0, "Jane Q. Applicant")));

// Markup annotations: page 1's draw no glyph (a highlight, an ink stroke, a square), page 2 also has a FreeText note,
// whose appearance draws text.
save(
  "markup-annotations.pdf",
  buildDocument([textContent(["Reviewed draft", "The totals in table 2 were checked twice."]), textContent(["Second page", "Figures are in thousands."])], (doc) => {
    for (let index = 0; index < 2; index++) {
      const page = doc.loadPage(index);
      addMarkup(page, [[56, 74, 300]], [50, 300, 150, 340]);
      if (index === 1) {
        const note = page.createAnnotation("FreeText");
        note.setRect([300, 300, 560, 330]);
        note.setContents("Reviewer: see the appendix");
        note.update();
      }
      page.destroy();
    }
  }),
);

// A link whose appearance draws a caption: mupdf keeps links apart from annotations and draws neither the link nor it.
save("link-only.pdf", buildDocument([textContent(["Read the terms online."])], (doc) => addLink(doc, 0, "Link caption")));

// Cut to 40%: mupdf writes the page tree first, so it repairs the file and finds page 1's text only.
const sound = save("truncated-source.tmp.pdf", buildDocument([1, 2, 3, 4].map((n) => textContent(paragraph(n, 40)))));
writeFileSync(join(outDir, "truncated-repaired.pdf"), sound.subarray(0, Math.floor(sound.length * 0.4)));
// Cut to 40% where the page tree and catalog come last (as LaTeX writes them): no pages survive.
const tail = handWrittenPdf([1, 2, 3, 4].map((n) => textContent(paragraph(n, 40))));
writeFileSync(join(outDir, "truncated-no-pages.pdf"), tail.subarray(0, Math.floor(tail.length * 0.4)));

// A readable file whose xref table points nowhere: mupdf rebuilds it ("repaired").
const uncompressed = save("broken-xref-source.tmp.pdf", buildDocument([textContent(["Repaired text"])]), "");
const raw = Buffer.from(uncompressed).toString("latin1");
const xrefAt = raw.lastIndexOf("startxref");
writeFileSync(join(outDir, "broken-xref.pdf"), Buffer.from(`${raw.slice(0, xrefAt)}startxref\n999999\n%%EOF\n`, "latin1"));

writeFileSync(join(outDir, "garbage.pdf"), `%PDF-1.7\n${"this is not a pdf body ".repeat(20)}\n%%EOF\n`);
writeFileSync(
  join(outDir, "html.pdf"),
  "<!DOCTYPE html>\n<html><head><title>Not a PDF</title></head><body><h1>Hello</h1><p>An HTML page served as .pdf.</p></body></html>\n",
);
writeFileSync(join(outDir, "zip.pdf"), buildZip("content.txt", "A zip archive named .pdf.\n"));

save("too-many-pages.pdf", buildDocument(Array.from({ length: 21 }, (_, i) => textContent([`Page ${i + 1} of 21`]))));

// 20 pages x 60 lines x ~100 characters: about 120,000 characters, over the 100,000 limit.
save("long-text.pdf", buildDocument(Array.from({ length: 20 }, (_, i) => textContent(paragraph(i + 1, 60, 84)))));

// Two columns of eight sentences on aligned baselines under a full-width title (drawn last).
save(
  "two-columns.pdf",
  buildDocument([
    columnsPage({
      size: 10,
      leading: 14,
      left: 56,
      columnWidth: 230,
      gutter: 24,
      stagger: 0,
      bands: [{ top: 720, columns: [columnSentences("Left", 1, 8, "the tide comes in at dawn."), columnSentences("Right", 1, 8, "the ferry leaves at noon.")] }],
      fullWidth: [{ y: 770, size: 16, text: "Harbour report: tides and ferries for the whole week" }],
    }),
  ]),
);

// Three columns in two bands: a full-width title, four sentences per column, a full-width heading, four more.
// Baselines staggered by 3 points per column; a margin note reading upwards on the left, drawn first.
save(
  "three-columns.pdf",
  buildDocument([
    upwardTextAt(28, 560, 8, "Printed for the valley councils") +
    "\n" +
    columnsPage({
      size: 9,
      leading: 12,
      left: 40,
      columnWidth: 160,
      gutter: 18,
      stagger: 3,
      bands: [
        { top: 730, columns: ["West", "Centre", "East"].map((name) => columnSentences(name, 1, 4, "rain falls on the hills.")) },
        { top: 640, columns: ["West", "Centre", "East"].map((name) => columnSentences(name, 5, 8, "wind turns to the north.")) },
      ],
      fullWidth: [
        { y: 770, size: 16, text: "Weather across the three valleys, week twelve" },
        { y: 668, size: 12, text: "Outlook for the second half of the week, from Thursday to Sunday" },
      ],
    }),
  ]),
);

// A two-column table drawn row by row (short labels, longer values): its rows must stay rows.
const tableRows: [string, string][] = [
  ["Name", "Jane Q. Applicant of the northern district"],
  ["Filing status", "Married filing separately for the year"],
  ["Country", "Republic of Korea, resident since 2004"],
  ["Visa type", "F-1 student visa, valid until next spring"],
  ["Wages", "$3,400 reported on Form W-2 by the college"],
  ["Treaty", "Article 21 of the income tax treaty applies"],
  ["Refund", "Direct deposit to the account on file today"],
  ["Signed", "On the fifteenth of April, in the morning"],
];
save(
  "table-rows.pdf",
  buildDocument([
    [
      textAt(56, 770, 14, "Applicant details"),
      ...tableRows.flatMap(([label, value], i) => [textAt(56, 740 - i * 16, 10, label), textAt(170, 740 - i * 16, 10, value)]),
    ].join("\n"),
  ]),
);

// Text the page's drawing hides but the file holds, as poppler, pdf.js and PDFium read it: a table cell's value
// cut off by the cell's clip rectangle, and a printer's slug outside the crop box but on the media box (bench d16's
// proof lines). Text drawn beyond the media box is off the page for every reader.
save(
  "clipped-text.pdf",
  buildDocument(
    [
      [
        textAt(56, 770, 12, "Visible body text of the page."),
        `q 56 700 120 20 re W n ${textAt(60, 706, 10, "Chq. No. 085900 BILL NO. 133, 132, 139, 138, 143, 140, 142")} Q`,
        textAt(40, 818, 8, "Proof slug: Page 1 of 48, 7:48 - 6-DEC-2007"),
        textAt(700, 400, 12, "Drawn beyond the media box"),
      ].join("\n"),
    ],
    (doc) => doc.findPage(0).put("CropBox", [36, 36, 559, 806]),
  ),
);

// Two columns of Japanese in vertical writing mode (a non-embedded Adobe-Japan1 font, Identity of UTF-16 by its
// CMap), read right to left: mupdf makes a line of every vertical glyph.
save(
  "vertical-japanese.pdf",
  buildDocument([], (doc) => {
    const font = new mupdf.Font("Times-Roman");
    const cjk = doc.addCJKFont(font, "ja", 1, true);
    const utf16 = (text: string): string => [...text].map((c) => c.charCodeAt(0).toString(16).padStart(4, "0")).join("");
    const resources = doc.addObject({ Font: { J1: cjk } });
    const columns = ["縦書きの本文です", "二列目も読みます"].map((text, i) => `BT /J1 14 Tf 1 0 0 1 ${400 - i * 20} 780 Tm <${utf16(text)}> Tj ET`);
    const page = doc.addPage([0, 0, 595, 842], 0, resources, columns.join("\n"));
    doc.insertPage(-1, page);
    for (const o of [page, resources, cjk]) o.destroy();
    font.destroy();
  }),
);

// Korean words each placed by itself, half an em apart, with no space glyph between them; a Korean line that draws
// its spaces; and Japanese words placed the same way, which take no spaces (non-embedded Adobe-Korea1 and
// Adobe-Japan1 fonts, UTF-16 by their CMaps).
save(
  "korean-words.pdf",
  buildDocument([], (doc) => {
    const font = new mupdf.Font("Times-Roman");
    const korean = doc.addCJKFont(font, "ko", 0, true);
    const japanese = doc.addCJKFont(font, "ja", 0, true);
    const utf16 = (text: string): string => [...text].map((c) => c.charCodeAt(0).toString(16).padStart(4, "0")).join("");
    const wordByWord = (name: string, words: readonly string[], y: number): string[] => {
      let x = 56;
      return words.map((word) => {
        const shown = `BT /${name} 12 Tf 1 0 0 1 ${x} ${y} Tm <${utf16(word)}> Tj ET`;
        x += 12 * word.length + 6;
        return shown;
      });
    };
    const resources = doc.addObject({ Font: { K1: korean, J1: japanese } });
    const contents = [
      ...wordByWord("K1", ["침하게", "흐린", "품이", "눈이", "올", "듯하더니"], 780),
      `BT /K1 12 Tf 1 0 0 1 56 750 Tm <${utf16("눈은 아니 오고 2023년")}> Tj ET`,
      ...wordByWord("J1", ["日本語", "の", "文章"], 720),
    ];
    const page = doc.addPage([0, 0, 595, 842], 0, resources, contents.join("\n"));
    doc.insertPage(-1, page);
    for (const o of [page, resources, korean, japanese]) o.destroy();
    font.destroy();
  }),
);

for (const tmp of ["truncated-source.tmp.pdf", "broken-xref-source.tmp.pdf"]) rmSync(join(outDir, tmp));
console.log(`fixtures written to ${outDir}`);

/** An uncompressed PDF with the content streams first and the page tree and catalog last. */
// A page mostly set in a font without a Unicode map, around readable lines: a heading, a label line with one
// unreadable word, and a footer. A mixed line that is mostly unmapped glyphs is dropped with the paragraph.
save(
  "mostly-unreadable.pdf",
  buildDocument([], (doc) => {
    const cid = new mupdf.Font("Times-Roman");
    const cidRef = doc.addFont(cid);
    cidRef.delete("ToUnicode");
    const helvetica = new mupdf.Font("Helvetica");
    const helveticaRef = doc.addSimpleFont(helvetica, "Latin");
    const glyphs = (text: string) => [...text].map((c) => cid.encodeCharacter(c.codePointAt(0) ?? 0x3f).toString(16).padStart(4, "0")).join("");
    const body = paragraph(1, 12, 70).map((line, k) => `BT /C1 11 Tf 56 ${700 - k * 14} Td <${glyphs(line)}> Tj ET`);
    const contents = [
      "BT /F1 16 Tf 56 770 Td (Quarterly Report 2024) Tj ET",
      `BT /F1 11 Tf 56 740 Td (Prepared by: ) Tj /C1 11 Tf <${glyphs("Finance")}> Tj ET`,
      ...body,
      `BT /F1 11 Tf 56 500 Td (x) Tj /C1 11 Tf <${glyphs("unreadable words")}> Tj ET`,
      "BT /F1 9 Tf 56 60 Td (Page 1 of 1 - Example Corp) Tj ET",
    ].join("\n");
    const resources = doc.addObject({ Font: { C1: cidRef, F1: helveticaRef } });
    const page = doc.addPage([0, 0, 595, 842], 0, resources, contents);
    doc.insertPage(-1, page);
    for (const o of [page, resources, helveticaRef, cidRef]) o.destroy();
    helvetica.destroy();
    cid.destroy();
  }),
);

// Fake bold, both ways it is drawn: glyph by glyph, each glyph twice 0.35 pt apart ("BBoolldd" in mupdf), and a
// whole line drawn again 0.4 pt to the right and 0.3 pt up. Plain text after it, once, with real double letters.
{
  // After each glyph the pen steps back by its width less 70/1000 em (1 pt at 14 pt) to strike it again.
  const helvetica = new mupdf.Font("Helvetica");
  let glyphTwice = "BT /F1 14 Tf 56 770 Td [";
  for (const ch of "Bold heading") {
    const width = Math.round(helvetica.advanceGlyph(helvetica.encodeCharacter(ch.codePointAt(0) ?? 0x20), 0) * 1000);
    glyphTwice += `(${ch}) ${width - 70} (${ch}) 70 `;
  }
  glyphTwice += "] TJ ET";
  helvetica.destroy();
  const lineTwice = ["BT /F1 12 Tf 56 740 Td (Emphasised line drawn twice) Tj ET", "BT /F1 12 Tf 56.4 740.3 Td (Emphasised line drawn twice) Tj ET"];
  save("fake-bold.pdf", buildDocument([[glyphTwice, ...lineTwice, textContent(["Committee bookkeeper: three lls, ss and ee stay."]).replace("56 770 Td", "56 700 Td")].join("\n")]));
}

// Non-embedded Symbol and ZapfDingbats fonts (no FontFile, no ToUnicode), as old office files use them for
// Greek letters, check marks and bullets.
save(
  "symbol-fonts.pdf",
  buildDocument([], (doc) => {
    const helvetica = new mupdf.Font("Helvetica");
    const helveticaRef = doc.addSimpleFont(helvetica, "Latin");
    const symbol = doc.addObject({ Type: "Font", Subtype: "Type1", BaseFont: "Symbol" });
    const dingbats = doc.addObject({ Type: "Font", Subtype: "Type1", BaseFont: "ZapfDingbats" });
    const resources = doc.addObject({ Font: { F1: helveticaRef, S: symbol, Z: dingbats } });
    const contents = [
      "BT /F1 12 Tf 56 770 Td (Angle ) Tj /S 12 Tf (a) Tj /F1 12 Tf ( and ratio ) Tj /S 12 Tf (p) Tj ET",
      // ZapfDingbats 4 = a20 (check mark), l = a71 (black circle), H = a28 (star)
      "BT /Z 12 Tf 56 740 Td (4) Tj /F1 12 Tf ( Approved) Tj ET",
      "BT /Z 12 Tf 56 720 Td (l) Tj /F1 12 Tf ( First point) Tj ET",
      "BT /Z 12 Tf 56 700 Td (H) Tj /F1 12 Tf ( Rated item) Tj ET",
    ].join("\n");
    const page = doc.addPage([0, 0, 595, 842], 0, resources, contents);
    doc.insertPage(-1, page);
    for (const o of [page, resources, helveticaRef, symbol, dingbats]) o.destroy();
    helvetica.destroy();
  }),
);

// The same non-embedded ZapfDingbats font with its dictionaries in compressed object streams (PDF 1.5 and later), where
// the font's name is not in the file's bytes as written: a page with a check mark, and a page of bullets alone.
save(
  "dingbats-object-streams.pdf",
  buildDocument([], (doc) => {
    const helvetica = new mupdf.Font("Helvetica");
    const helveticaRef = doc.addSimpleFont(helvetica, "Latin");
    const dingbats = doc.addObject({ Type: "Font", Subtype: "Type1", BaseFont: "ZapfDingbats" });
    const resources = doc.addObject({ Font: { F1: helveticaRef, Z: dingbats } });
    const pages = [
      // ZapfDingbats 4 = a20 (check mark)
      "BT /Z 12 Tf 56 770 Td (4) Tj /F1 12 Tf ( Approved) Tj ET",
      // l = a71 (black circle), n = a73 (black square)
      ["BT /Z 12 Tf 56 770 Td (l) Tj /F1 12 Tf ( First point) Tj ET", "BT /Z 12 Tf 56 750 Td (n) Tj /F1 12 Tf ( Second point) Tj ET"].join("\n"),
    ];
    for (const contents of pages) {
      const page = doc.addPage([0, 0, 595, 842], 0, resources, contents);
      doc.insertPage(-1, page);
      page.destroy();
    }
    for (const o of [resources, helveticaRef, dingbats]) o.destroy();
    helvetica.destroy();
  }),
  "compress,objstms",
);

// A figure (an image) tagged with an ActualText that describes it, between two lines of text: no glyph is drawn for
// the description, which mupdf writes as a line of no area and poppler does not read.
save(
  "figure-actual-text.pdf",
  buildDocument(
    [
      [
        "BT /F1 12 Tf 56 770 Td (Before the figure.) Tj ET",
        "/Figure <</ActualText (A bar chart of sales by month)>> BDC q 200 0 0 150 56 600 cm /Im1 Do Q EMC",
        "BT /F1 12 Tf 56 560 Td (After the figure.) Tj ET",
      ].join("\n"),
    ],
    (doc) => {
      const image = doc.addStream("\xff\x00\x00\x00\xff\x00\x00\x00\xff\xff\xff\xff", {
        Type: "XObject",
        Subtype: "Image",
        Width: 2,
        Height: 2,
        ColorSpace: doc.newName("DeviceRGB"),
        BitsPerComponent: 8,
      });
      const resources = doc.findPage(0).get("Resources");
      resources.put("XObject", doc.newDictionary());
      resources.get("XObject").put("Im1", image);
    },
  ),
);

// Arabic drawn in visual order (as most Arabic PDFs are) in a Type 3 font whose /ToUnicode maps one glyph to the
// lam-alef ligature U+FEFB: "سلام" must come out in logical order, its lam before its alef.
save(
  "arabic-lam-alef.pdf",
  buildDocument([], (doc) => {
    const glyphs: Record<number, string> = { 0x20: "0020", 0x41: "0633", 0x42: "FEFB", 0x43: "0645", 0x44: "0627", 0x45: "0644", 0x46: "0639" };
    const procs: Record<string, unknown> = {};
    const differences: unknown[] = [];
    for (const code of Object.keys(glyphs).map(Number)) {
      procs[`g${code}`] = doc.addStream(code === 0x20 ? "300 0 d0" : "600 0 0 0 500 700 d1 50 0 400 600 re f", {});
      differences.push(code, doc.newName(`g${code}`));
    }
    const entries = Object.entries(glyphs).map(([code, unicode]) => `<${Number(code).toString(16)}> <${unicode}>`);
    const toUnicode = doc.addStream(
      `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Arabic-T3 def 1 begincodespacerange <00> <FF> endcodespacerange ${entries.length} beginbfchar ${entries.join(" ")} endbfchar endcmap CMapName currentdict /CMap defineresource pop end end`,
      {},
    );
    const font = doc.addObject({
      Type: "Font",
      Subtype: "Type3",
      FontBBox: [0, 0, 600, 700],
      FontMatrix: [0.001, 0, 0, 0.001, 0, 0],
      CharProcs: procs,
      FirstChar: 0x20,
      LastChar: 0x46,
      Widths: Array.from({ length: 0x27 }, (_, i) => (i === 0 ? 300 : 600)),
      Encoding: { Type: "Encoding", Differences: differences },
      Resources: {},
      ToUnicode: toUnicode,
    });
    const resources = doc.addObject({ Font: { A: font } });
    // Drawn left to right in visual order: م ﻻ س, space, م ل ا ع; read right to left that is "عالم سلام".
    const page = doc.addPage([0, 0, 595, 842], 0, resources, "BT /A 20 Tf 300 770 Td <434241204345444" + "6> Tj ET");
    doc.insertPage(-1, page);
    for (const o of [page, resources, font, toUnicode]) o.destroy();
  }),
);

/**
 * Adds a page of lines drawn left to right in the order their glyphs stand on the page (visual order), each at
 * (x, y), in a Type 3 font of filled boxes whose /ToUnicode gives every glyph its character; a combining mark is a
 * glyph of no width drawn before the letter it sits on, as right-to-left producers set them.
 */
function addVisualLinesPage(doc: PDFDocument, lines: readonly { x: number; y: number; visual: string }[]): void {
  const chars = [...new Set(lines.flatMap((line) => [...line.visual]))];
  if (chars.length > 0x7f - 0x21) throw new Error("too many distinct characters for one Type 3 font");
  const codeOf = (c: string) => 0x21 + chars.indexOf(c);
  const isMark = (c: string) => /\p{M}/u.test(c);
  const procs: Record<string, unknown> = {};
  const differences: unknown[] = [];
  const entries: string[] = [];
  for (const c of chars) {
    const code = codeOf(c);
    procs[`g${code}`] = doc.addStream(c === " " ? "300 0 d0" : isMark(c) ? "0 0 d0" : "600 0 0 0 500 700 d1 50 0 400 600 re f", {});
    differences.push(code, doc.newName(`g${code}`));
    entries.push(`<${code.toString(16)}> <${(c.codePointAt(0) as number).toString(16).padStart(4, "0")}>`);
  }
  const toUnicode = doc.addStream(
    `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Visual-T3 def 1 begincodespacerange <00> <FF> endcodespacerange ${entries.length} beginbfchar ${entries.join(" ")} endbfchar endcmap CMapName currentdict /CMap defineresource pop end end`,
    {},
  );
  const font = doc.addObject({
    Type: "Font",
    Subtype: "Type3",
    FontBBox: [0, 0, 600, 700],
    FontMatrix: [0.001, 0, 0, 0.001, 0, 0],
    CharProcs: procs,
    FirstChar: 0x21,
    LastChar: 0x21 + chars.length - 1,
    Widths: chars.map((c) => (c === " " ? 300 : isMark(c) ? 0 : 600)),
    Encoding: { Type: "Encoding", Differences: differences },
    Resources: {},
    ToUnicode: toUnicode,
  });
  const resources = doc.addObject({ Font: { V: font } });
  const contents = lines.map(({ x, y, visual }) => `BT /V 16 Tf 1 0 0 1 ${x} ${y} Tm <${[...visual].map((c) => codeOf(c).toString(16)).join("")}> Tj ET`);
  const page = doc.addPage([0, 0, 595, 842], 0, resources, contents.join("\n"));
  doc.insertPage(-1, page);
  for (const o of [page, resources, font, toUnicode]) o.destroy();
}

// Right-to-left lines with digits, punctuation, brackets, a Latin word and marks, drawn in visual order (as most
// Hebrew and Arabic PDFs are). Logical order: "שלום, עולם 123.", "שלום 2024 עולם", "סעיף (5) לחוק", "גרסה PDF 1.7 כאן",
// "عام 2024.", "السّيّدة". The marks (shadda) are drawn before the letter they sit on.
save(
  "right-to-left-mixed.pdf",
  buildDocument([], (doc) =>
    addVisualLinesPage(doc, [
      { x: 300, y: 770, visual: ".123 םלוע ,םולש" },
      { x: 300, y: 740, visual: "םלוע 2024 םולש" },
      { x: 300, y: 710, visual: "קוחל (5) ףיעס" },
      { x: 300, y: 680, visual: "ןאכ PDF 1.7 הסרג" },
      { x: 300, y: 650, visual: ".2024 ماع" },
      { x: 300, y: 620, visual: "ةد\u0651ي\u0651سلا" },
    ]),
  ),
);

function handWrittenPdf(contents: readonly string[]): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const font = add("<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>");
  const streams = contents.map((c) => add(`<</Length ${c.length}>>\nstream\n${c}\nendstream`));
  const pagesId = objects.length + contents.length + 1;
  const pageIds = streams.map((s) =>
    add(`<</Type/Page/Parent ${pagesId} 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 ${font} 0 R>>>>/Contents ${s} 0 R>>`),
  );
  add(`<</Type/Pages/Count ${pageIds.length}/Kids[${pageIds.map((id) => `${id} 0 R`).join(" ")}]>>`);
  const catalog = add(`<</Type/Catalog/Pages ${pagesId} 0 R>>`);
  let out = "%PDF-1.7\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<</Size ${objects.length + 1}/Root ${catalog} 0 R>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** A one-entry ZIP (deflate), enough for "PK\x03\x04" bytes that are not a PDF. */
function buildZip(name: string, content: string): Uint8Array {
  const data = Buffer.from(content);
  const packed = deflateRawSync(data);
  const nameBytes = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  const centralAt = local.length + nameBytes.length + packed.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, nameBytes, packed, central, nameBytes, end]);
}

function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
