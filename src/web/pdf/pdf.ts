/**
 * @module web/pdf/pdf — embedded-text extraction from a digital PDF with mupdf (spec web-evidence §2.5, §4.3, §8).
 *
 * Every failure is an ApiError that is never settled: PDF_TOO_LARGE, NOT_A_PDF, PDF_UNREADABLE, PDF_ENCRYPTED
 * (a password is needed to open it), PDF_TOO_MANY_PAGES, PDF_NO_TEXT (no page has usable text). No OCR.
 * A PDF with only an owner password opens without one, as in every viewer, and is read with a warning. mupdf is synchronous: a call holds the thread for the extraction
 * (70-250 ms for 20 dense pages on a shared 2-core machine, mostly mupdf layout); run it in a worker if that matters.
 *
 * Room web/pdf/: PDF bytes to page text with mupdf (layout, page text, symbol fonts, limits). It imports only web/text/.
 */
import type { DisplayList, Document, DocumentPermission, PDFAnnotation, PDFDocument, PDFPage, StructuredText } from "mupdf";
import { ApiError } from "../../errors.ts";
import type { PdfExtraction, PdfPage } from "./pdf-schema.ts";
import { isDingbatsFont } from "./pdf-dingbats.ts";
import { type PageTextHints, readPageText } from "./pdf-page-text.ts";
import { canonicalizePdfText } from "./pdf-text.ts";
import { countCodePoints, limitText, sha256Hex } from "../text/text-output.ts";
import { loadMupdf, type MupdfModule } from "./pdf-wasm.ts";

export type { PdfExtraction, PdfPage } from "./pdf-schema.ts";

/** Spec §8 limits: 5 MiB, 20 pages, 100,000 returned characters. */
export const pdfLimits = { maxBytes: 5 * 1024 * 1024, maxPages: 20, maxChars: 100_000 } as const;

export interface ReadPdfOptions {
  maxPages?: number;
  maxChars?: number;
  maxBytes?: number;
}

/**
 * The line that opens each page in `text` (N is the physical page number); pages are separated by a blank line,
 * and a page without text is its marker alone. The character budget counts markers too, so `text` fits it.
 */
export function formatPageMarker(page: number): string {
  return `--- page ${page} ---`;
}

const PAGE_SEPARATOR = "\n\n";
// Acrobat accepts the header anywhere in the first 1024 bytes (PDF 1.7 implementation note 13).
const HEADER_WINDOW = 1024;
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"
// mupdf's structured-text options: ligatures expanded and spacing as laid out; no dehyphenation (it would glue
// real compounds split at a line end). Nothing clipped: text a clip path hides is still the page's text, as poppler,
// pdf.js and PDFium read it (a table cell's value that overflows the cell); lines wholly outside TEXT_BOX are left
// out instead (readPageText's bounds).
const STEXT_OPTIONS = "clip=no";
// The box whose text is the page's: the media box, as poppler (the PDF bench's reference), pdf.js and PDFium read
// it, though a viewer shows only the crop box. Text between the two is mostly a printer's slug (bench d16's proof
// lines: file name, date, "Page 1 of 48") and sometimes a page cropped to one part of it.
const TEXT_BOX = "MediaBox";
// A page with Arabic letters is read again with its ligatures kept as the one character they are: mupdf's own
// expansion puts a lam-alef's letters in the wrong order in right-to-left text (canonicalizePdfText folds the
// ligature to lam, alef). Not for every page: a kept Latin ligature loses the space after it ("offprivacy",
// bench d07).
const ARABIC_OPTIONS = "preserve-ligatures,clip=no";
// An annotation's appearance drawn alone is asked only whether it shows any glyph: none is clipped, so a glyph
// the page would show is never missed (the page's own clip can only hide more).
const ANNOTATION_OPTIONS = "clip=no";
const ARABIC_LETTER = /\p{Script=Arabic}/u;
// A page whose non-space characters are more than this share of U+FFFD (glyphs of fonts without a Unicode
// map) is partly unreadable: only its lines that are mostly readable and hold a word are kept (headings,
// labels, footers); the rest would read as evidence of something else. A line is held to the same share.
const MAX_UNMAPPED_SHARE = 0.5;
const WORD = /[\p{L}\p{N}]{2,}/u;
const PERMISSIONS: readonly DocumentPermission[] = ["print", "copy", "edit", "annotate", "form", "accessibility", "assemble", "print-hq"];

interface RawPage {
  page: number;
  label: string | undefined;
  text: string;
  /** U+FFFD characters in `text`, and (when there are some) its characters other than whitespace. */
  unmapped: number;
  visible: number;
  failed: boolean;
}

/**
 * Extracts the embedded text of every page of a PDF given as bytes.
 * @example const pdf = await readPdf(bytes); pdf.pages[0]?.text
 */
export async function readPdf(bytes: Uint8Array, options: ReadPdfOptions = {}): Promise<PdfExtraction> {
  const maxBytes = options.maxBytes ?? pdfLimits.maxBytes;
  const maxPages = options.maxPages ?? pdfLimits.maxPages;
  const maxChars = options.maxChars ?? pdfLimits.maxChars;

  if (bytes.byteLength > maxBytes) {
    throw new ApiError("PDF_TOO_LARGE", {
      message: `The PDF is too large: ${bytes.byteLength} bytes, the limit is ${maxBytes} bytes (${formatMib(maxBytes)}).`,
      details: { max_bytes: maxBytes },
    });
  }
  if (!hasPdfHeader(bytes)) throw notAPdf(`it has no %PDF- header in its first ${HEADER_WINDOW} bytes`);

  const mupdf = await loadMupdf();
  const started = performance.now();
  const { pageCount, pages, repaired, ownerRestrictions } = extractPages(mupdf, bytes, maxPages);

  const warnings: string[] = [];
  if (ownerRestrictions !== undefined) {
    warnings.push(
      "The PDF is encrypted with an owner password only: it opens without a password and was read" +
        (ownerRestrictions.length > 0 ? `; its permissions disallow: ${ownerRestrictions.join(", ")}.` : "."),
    );
  }
  if (repaired) warnings.push("The PDF was damaged and has been repaired; some text may be missing or out of order.");
  const unreadablePages = pages.filter((p) => !p.failed && isUnreadable(p)).map((p) => p.page);
  const emptyPages = pages.filter((p) => p.text === "").map((p) => p.page);
  const usable = pages.map((p) => (unreadablePages.includes(p.page) ? { ...p, text: readableLines(p.text) } : p));
  if (usable.every((p) => p.text === "")) {
    const why =
      unreadablePages.length === 0
        ? "image-only or scanned"
        : `page(s) ${unreadablePages.join(", ")} use fonts without a Unicode map` +
          (emptyPages.length > 0 ? `, page(s) ${emptyPages.join(", ")} are image-only, scanned or blank` : "");
    throw new ApiError("PDF_NO_TEXT", {
      message: `The PDF has no usable embedded text on any of its ${pageCount} page(s) (${why}; OCR is not offered).`,
    });
  }
  for (const p of pages) {
    if (p.failed) warnings.push(`Page ${p.page} could not be read and is reported without text.`);
    else if (unreadablePages.includes(p.page)) {
      const kept = usable.find((u) => u.page === p.page)?.text ?? "";
      warnings.push(
        `Page ${p.page}: ${p.unmapped} of its ${p.visible} characters use fonts without a Unicode map; the page is partly unreadable (listed in unreadable_text_pages)` +
          (kept === "" ? ": no line of it could be read" : ": only its readable lines are returned") +
          " (OCR is not offered; the page's glyphs and images may carry information).",
      );
    } else if (p.unmapped > 0) {
      warnings.push(`Page ${p.page}: ${p.unmapped} character(s) use a font without a Unicode map and appear as U+FFFD.`);
    }
  }
  if (emptyPages.length > 0) {
    warnings.push(
      `No embedded text on page(s) ${emptyPages.join(", ")} (scanned or blank; OCR is not offered; images may carry information).`,
    );
  }

  const { returned, text, truncated } = fitToBudget(usable, maxChars);
  if (truncated) {
    const last = returned[returned.length - 1]?.page ?? 0;
    warnings.push(
      `Text truncated to ${maxChars} characters: it ends within page ${last} of ${pageCount}` +
        (last < pageCount ? `; pages ${last + 1}-${pageCount} are not returned.` : "."),
    );
  }

  return {
    page_count: pageCount,
    pages: returned,
    text,
    text_sha256: sha256Hex(text),
    source_sha256: sha256Hex(bytes),
    truncated,
    empty_text_pages: emptyPages,
    unreadable_text_pages: unreadablePages,
    ocr_performed: false,
    warnings,
    extraction_ms: Math.round(performance.now() - started),
  };
}

function extractPages(
  mupdf: MupdfModule,
  bytes: Uint8Array,
  maxPages: number,
): { pageCount: number; pages: RawPage[]; repaired: boolean; ownerRestrictions: DocumentPermission[] | undefined } {
  let doc: Document;
  try {
    doc = mupdf.Document.openDocument(inPlace(bytes), "application/pdf");
  } catch (cause) {
    throw unreadable("mupdf could not open it", cause);
  }
  try {
    // openDocument sniffs the content and opens HTML, XPS, ZIP… whatever the magic says (bench d14, d15); the
    // header check above already stops those, this one holds if mupdf's sniffing ever disagrees with it.
    const pdf = doc.asPDF();
    if (!pdf) throw notAPdf("mupdf recognised another document format");
    // Only a user password protects the content: a PDF with just an owner password opens without one in every
    // viewer (mupdf decrypts it with the empty user password), so it is read, with a warning.
    if (pdf.needsPassword()) {
      throw new ApiError("PDF_ENCRYPTED", { message: "The PDF is password-protected: it needs a password to open." });
    }
    const ownerRestrictions = isEncrypted(pdf) ? PERMISSIONS.filter((p) => !pdf.hasPermission(p)) : undefined;
    let pageCount: number;
    try {
      pageCount = pdf.countPages();
    } catch (cause) {
      throw unreadable("its page tree could not be read", cause);
    }
    if (pageCount < 1) throw unreadable("it has no pages (truncated or broken)");
    if (pageCount > maxPages) {
      throw new ApiError("PDF_TOO_MANY_PAGES", {
        message: `The PDF has too many pages: ${pageCount}, the limit is ${maxPages}.`,
        details: { page_count: pageCount, max_pages: maxPages },
      });
    }
    const labelled = hasPageLabels(pdf);
    const pages: RawPage[] = [];
    const dingbats = dingbatsScope(bytes);
    for (let index = 0; index < pageCount; index++) pages.push(extractPage(pdf, index, labelled, dingbats));
    if (pages.every((p) => p.failed)) throw unreadable("none of its pages could be read");
    return { pageCount, pages, repaired: pdf.wasRepaired(), ownerRestrictions };
  } finally {
    doc.destroy();
  }
}

function extractPage(pdf: PDFDocument, index: number, labelled: boolean, dingbats: DingbatsScope): RawPage {
  const number = index + 1;
  let page: PDFPage | undefined;
  let list: DisplayList | undefined;
  let stext: StructuredText | undefined;
  try {
    page = pdf.loadPage(index);
    const label = labelled ? readLabel(page) : undefined;
    // A page with form widgets, or with annotations that draw text, is read through a display list that holds
    // them: their appearances are drawn on the page like its contents (a filled-in field, a button's caption, a
    // FreeText note), and Page.toStructuredText leaves them out. Any other page is read straight from its contents,
    // which gives the same text without recording and replaying the page and its annotations (bench d07 with five
    // markup annotations a page: 36.5 against 33.6 ms, checks included): a page without annotations, one whose
    // /Annots holds only links (most annotated pages of papers and manuals; mupdf never draws those), and one whose
    // annotations draw no glyph (highlights, ink, shapes).
    if (needsDisplayList(page)) list = page.toDisplayList(true);
    const read = (options: string): StructuredText => (list ? list.toStructuredText(options) : (page as PDFPage).toStructuredText(options));
    const hints: PageTextHints = { dingbats: dingbats === "file" ? "file" : dingbats === "maybe" && pageFontsNameDingbats(page) ? "page" : undefined, bounds: page.getBounds(TEXT_BOX) };
    stext = read(STEXT_OPTIONS);
    let raw = readPageText(stext, hints);
    if (ARABIC_LETTER.test(raw)) {
      stext.destroy();
      stext = read(ARABIC_OPTIONS);
      raw = readPageText(stext, hints);
    }
    const text = canonicalizePdfText(raw);
    const unmapped = countUnmapped(text);
    // Visible characters matter only beside unmapped ones (isUnreadable, the warnings): not counted on other pages.
    return { page: number, label, text, unmapped, visible: unmapped > 0 ? countVisible(text) : 0, failed: false };
  } catch {
    return { page: number, label: undefined, text: "", unmapped: 0, visible: 0, failed: true };
  } finally {
    stext?.destroy();
    list?.destroy();
    page?.destroy();
  }
}

/**
 * Whether the page must be read through a display list because mupdf draws text on it from its annotations or form
 * widgets. A page with form widgets always is (a filled field draws its value; drawing each widget alone first to
 * find out would draw a filled one twice). The other annotations mupdf loaded from the page's /Annots entry (links
 * and popups are not loaded: mupdf keeps them apart and never draws them) are each drawn alone into structured text
 * with nothing clipped, until one shows a glyph. One that draws none adds nothing to the page's structured text:
 * each appearance runs after the contents in an interpreter of its own, which closes its marked content
 * (ActualText) when it ends, and the text device keeps no images or paths. One that cannot be drawn alone counts as
 * drawing text, so the page is read as it always was.
 */
function needsDisplayList(page: PDFPage): boolean {
  const widgets = page.getWidgets();
  for (const widget of widgets) widget.destroy();
  if (widgets.length > 0) return true;
  let draws = false;
  for (const annot of page.getAnnotations()) {
    if (!draws) draws = drawsText(annot);
    annot.destroy();
  }
  return draws;
}

function drawsText(annot: PDFAnnotation): boolean {
  let list: DisplayList | undefined;
  let stext: StructuredText | undefined;
  try {
    list = annot.toDisplayList();
    stext = list.toStructuredText(ANNOTATION_OPTIONS);
    // asText writes at least a line feed for every text block, and nothing for any other block.
    return stext.asText() !== "";
  } catch {
    return true;
  } finally {
    stext?.destroy();
    list?.destroy();
  }
}

function readLabel(page: { getLabel(): string }): string | undefined {
  try {
    const label = canonicalizePdfText(page.getLabel());
    return label === "" ? undefined : label;
  } catch {
    return undefined;
  }
}

function hasPageLabels(pdf: PDFDocument): boolean {
  const trailer = pdf.getTrailer();
  const root = trailer.get("Root");
  const labels = root.get("PageLabels");
  try {
    return !labels.isNull();
  } finally {
    labels.destroy();
    root.destroy();
    trailer.destroy();
  }
}

function isEncrypted(pdf: PDFDocument): boolean {
  const trailer = pdf.getTrailer();
  const encrypt = trailer.get("Encrypt");
  try {
    return !encrypt.isNull();
  } finally {
    encrypt.destroy();
    trailer.destroy();
  }
}

/** Pages and joined text within `maxChars` code points, markers included; cut by code point. */
function fitToBudget(pages: RawPage[], maxChars: number): { returned: PdfPage[]; text: string; truncated: boolean } {
  const returned: PdfPage[] = [];
  const parts: string[] = [];
  let used = 0;
  let truncated = false;
  for (const p of pages) {
    const head = (parts.length > 0 ? PAGE_SEPARATOR : "") + formatPageMarker(p.page);
    const body = p.text === "" ? "" : PAGE_SEPARATOR + p.text;
    const headChars = countCodePoints(head);
    const bodyChars = countCodePoints(body);
    if (used + headChars + bodyChars <= maxChars) {
      parts.push(head + body);
      used += headChars + bodyChars;
      // The body's code points are the separator's two and the text's.
      returned.push(toPage(p, p.text, p.text === "" ? 0 : bodyChars - PAGE_SEPARATOR.length));
      continue;
    }
    truncated = true;
    const room = maxChars - used - headChars - PAGE_SEPARATOR.length;
    if (room > 0 && p.text !== "") {
      const cut = limitText(p.text, room).value;
      if (cut !== "") {
        parts.push(`${head}${PAGE_SEPARATOR}${cut}`);
        returned.push(toPage(p, cut, countCodePoints(cut)));
      }
    }
    break;
  }
  return { returned, text: parts.join(""), truncated };
}

function toPage(p: RawPage, text: string, characters: number): PdfPage {
  return { page: p.page, ...(p.label === undefined ? {} : { label: p.label }), text, characters };
}

function hasPdfHeader(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.byteLength, HEADER_WINDOW) - PDF_MAGIC.length;
  for (let i = 0; i <= end; i++) {
    if (PDF_MAGIC.every((b, k) => bytes[i + k] === b)) return true;
  }
  return false;
}

function countUnmapped(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\uFFFD"); i !== -1; i = text.indexOf("\uFFFD", i + 1)) n++;
  return n;
}

/** Code points other than space and newline (a surrogate pair counts once, a lone surrogate once). */
function countVisible(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (code !== 0x20 && code !== 0x0a) n++;
  }
  return n;
}

function isUnreadable(p: RawPage): boolean {
  return p.unmapped > 0 && p.unmapped > p.visible * MAX_UNMAPPED_SHARE;
}

/** The lines of a partly unreadable page that are mostly readable and hold a word. */
function readableLines(text: string): string {
  const kept = text.split("\n").filter((line) => {
    if (line === "") return true;
    const unmapped = countUnmapped(line);
    return unmapped <= countVisible(line) * MAX_UNMAPPED_SHARE && WORD.test(line.replaceAll("\uFFFD", " "));
  });
  return canonicalizePdfText(kept.join("\n"));
}

// Whether a ZapfDingbats font may be in use, from one scan of the bytes: "file" when its name is in them (a page is
// walked when its text holds a control character), "maybe" when the file has compressed object streams (a font
// dictionary inside one is not in the bytes as written), else "none". Only with "maybe" are each page's own font
// resources read through mupdf's object API (reading them on every page of every file grew the WASM heap by ~70 MB
// over the bench's files), and a page they name ZapfDingbats in is walked whatever its text: its bullets too. With
// "file" that rule would walk every page of bench d16 (its pages name ZapfDingbats): 28 % more CPU a pass over the
// bench's files (pdf-throughput.ts --ref 1ed7633), so there bullets read as letters stay as mupdf reads them.
type DingbatsScope = "file" | "maybe" | "none";
const DINGBATS_NAME = Buffer.from("Dingbats", "latin1");
const OBJECT_STREAM = Buffer.from("/ObjStm", "latin1");

function dingbatsScope(bytes: Uint8Array): DingbatsScope {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.includes(DINGBATS_NAME)) return "file";
  return buffer.includes(OBJECT_STREAM) ? "maybe" : "none";
}

/** Whether the page's own font resources (not those of its form XObjects) name a ZapfDingbats font. */
function pageFontsNameDingbats(page: PDFPage): boolean {
  const handles: { destroy(): void }[] = [];
  try {
    const object = page.getObject();
    const resources = object.getInheritable("Resources");
    const fonts = resources.get("Font");
    handles.push(object, resources, fonts);
    if (!fonts.isDictionary()) return false;
    let found = false;
    fonts.forEach((font) => {
      handles.push(font);
      if (found) return;
      const base = font.get("BaseFont");
      handles.push(base);
      found = base.isName() && isDingbatsFont(base.asName());
    });
    return found;
  } catch {
    return false;
  } finally {
    for (const handle of handles) handle.destroy();
  }
}

/**
 * What to hand mupdf.js's openDocument so that the bytes are copied once, into WASM memory: it copies a Uint8Array
 * into a new Uint8Array first (`new Uint8Array(arg)`), but reads an ArrayBuffer in place. A view of part of a larger
 * buffer is handed over as it is.
 */
function inPlace(bytes: Uint8Array): ArrayBuffer | Uint8Array {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? buffer : bytes;
}

function notAPdf(why: string): ApiError {
  return new ApiError("NOT_A_PDF", { message: `The file is not a PDF: ${why}.` });
}

function unreadable(why: string, cause?: unknown): ApiError {
  return new ApiError("PDF_UNREADABLE", { message: `The PDF is unreadable: ${why}.`, cause });
}

function formatMib(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(2))} MiB`;
}
