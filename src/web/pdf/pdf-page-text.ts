/**
 * @module web/pdf/pdf-page-text — a page's text from mupdf's structured text, in reading order.
 *
 * Most pages come out as mupdf writes them (`asText`: lines, blocks set off by a blank line). Where mupdf's lines
 * interleave columns (pdf-layout.ts finds them from the line boxes, walked without their characters), the page
 * is rebuilt from the same lines, cut out of `asText`, column by column.
 *
 * Three faults need each character's font and position, which cost as much again as the layout to walk, so only
 * pages that show a sign of them are walked glyph by glyph: words drawn apart without space glyphs in the scripts
 * after which mupdf adds no space (Korean, Vietnamese, Indic; every page with a letter of those is walked); text drawn twice at (nearly) the same place (fake
 * bold: "BBoolldd", or a line repeated over itself), kept once as poppler does; and ZapfDingbats glyphs, which
 * mupdf reads as control characters and stray letters, mapped to their Unicode symbols. A page of a file that names
 * a ZapfDingbats font in its bytes is walked when its text holds a control character (the check marks and crosses,
 * a1–a31), since the walk costs as much again as the page's layout; a page whose own font resources name one in a file
 * whose font dictionaries sit in compressed object streams is walked whatever its text (its bullets read as letters,
 * a71 "●" as "G", are mapped too).
 *
 * Structured text is made without clipping; lines wholly outside the bounds given (text drawn off the page) are
 * left out here, and so are lines of no area (a figure's ActualText: no glyph drawn).
 */
import type { StructuredText } from "mupdf";
import { logicalLine } from "./pdf-bidi.ts";
import { dingbatCharacter, isDingbatsFont } from "./pdf-dingbats.ts";
import { type LayoutLine, orderLinesByColumns } from "./pdf-layout.ts";

// Letters of right-to-left scripts, against all letters: a page mostly in these reads its columns right to left.
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/gu;
const RTL_LETTER_ANY = new RegExp(RTL_LETTER.source, "u");
const LETTER = /\p{L}/gu;

/**
 * The page's raw text (before canonicalization), columns read one after another. Lines that do not run left to
 * right (a rotated margin note, a diagonal watermark) take no part in finding columns and come last.
 */
export function readPageText(stext: StructuredText, hints: PageTextHints = {}): string {
  const page = collectLines(stext, hints.bounds);
  let raw = stext.asText();
  let texts = splitLines(raw, page.linesPerBlock);
  const unspaced = UNSPACED_LETTER.test(raw);
  const bidirectional = RTL_LETTER_ANY.test(raw);
  const dingbats = hints.dingbats === "page" || (hints.dingbats === "file" && SUSPECT_DINGBAT.test(raw));
  if (unspaced || bidirectional || dingbats || (texts !== undefined && looksOverstruck(raw, texts, page.boxes))) {
    texts = readGlyphs(stext, texts, unspaced, bidirectional);
    raw = joinBlocks(texts, page.linesPerBlock, page.kept);
  }
  if (page.outside > 0) {
    texts ??= readGlyphs(stext, undefined, false, bidirectional);
    raw = joinBlocks(texts, page.linesPerBlock, page.kept);
  }
  // Vertical writing (CJK) reads in columns of its own, in mupdf's order, each column one line; mostly rotated text
  // is a rotated page: mupdf's order.
  if (page.vertical) return joinVerticalColumns(texts ?? readGlyphs(stext, undefined, false, bidirectional), page);
  if (page.horizontal.length * 2 < page.boxes.length - page.outside) return raw;
  const ordered = orderLinesByColumns(page.horizontal.map((i) => page.boxes[i] as LayoutLine));
  if (ordered === undefined) return raw;
  if (texts === undefined || texts.length !== page.boxes.length) return raw;
  const order = isRightToLeft(raw) ? orderLinesByColumns(page.horizontal.map((i) => page.boxes[i] as LayoutLine), { rightToLeft: true }) : ordered;
  if (order === undefined) return raw;
  const runs = order.map((run) => run.map((k) => page.horizontal[k] as number));
  const others = page.boxes.map((_, i) => i).filter((i) => !page.isHorizontal[i] && page.kept[i]);
  if (others.length > 0) runs.push(others);
  return joinRuns(runs, page.boxes, texts);
}

export interface PageTextHints {
  /**
   * A ZapfDingbats font: "page" when the page's font resources name one (the page is walked, its glyphs mapped
   * wherever they are), "file" when the file does (the page is walked when its text holds a control character, a1-a31).
   */
  readonly dingbats?: "page" | "file";
  /**
   * Lines wholly outside this rectangle (page space: x0, y0, x1, y1) are left out. For structured text made without
   * clipping, so that text a clip path hides (a table cell's overflow) is kept but text off the page is not.
   */
  readonly bounds?: readonly [number, number, number, number];
}

interface PageLines {
  /** Every text line's box, in mupdf's order. */
  boxes: LayoutLine[];
  /** Indices of the lines that run left to right. */
  horizontal: number[];
  isHorizontal: boolean[];
  /** Some line is in vertical writing mode. */
  vertical: boolean;
  /** Per line: it is in vertical writing mode. */
  upright: boolean[];
  /** Lines per text block, in order. */
  linesPerBlock: number[];
  /** Per line: it lies at least partly within the bounds given. */
  kept: boolean[];
  /** Lines left out (outside the bounds, or of no area). */
  outside: number;
}

/**
 * The text lines' boxes and directions, walked without their characters (and, on a page with a line of no area, that
 * line's characters).
 */
function collectLines(stext: StructuredText, bounds: PageTextHints["bounds"]): PageLines {
  const page: PageLines = { boxes: [], horizontal: [], isHorizontal: [], vertical: false, upright: [], linesPerBlock: [], kept: [], outside: 0 };
  const noArea: number[] = [];
  stext.walk({
    beginTextBlock() {
      page.linesPerBlock.push(0);
    },
    beginLine(bbox, wmode, direction) {
      const block = page.linesPerBlock.length - 1;
      page.linesPerBlock[block] = (page.linesPerBlock[block] ?? 0) + 1;
      const kept = bounds === undefined || (bbox[2] > bounds[0] && bbox[0] < bounds[2] && bbox[3] > bounds[1] && bbox[1] < bounds[3]);
      if (kept && !(bbox[2] > bbox[0] && bbox[3] > bbox[1])) noArea.push(page.boxes.length);
      page.kept.push(kept);
      if (!kept) page.outside++;
      const horizontal = kept && wmode === 0 && Math.abs(direction[1]) < 1e-3 && direction[0] > 0;
      if (wmode !== 0 && kept) page.vertical = true;
      page.upright.push(wmode !== 0);
      if (horizontal) page.horizontal.push(page.boxes.length);
      page.isHorizontal.push(horizontal);
      page.boxes.push({ x0: bbox[0], y0: bbox[1], x1: bbox[2], y1: bbox[3], block });
    },
  });
  if (noArea.length > 0) {
    const placeless = placelessLines(stext, new Set(noArea));
    for (const i of placeless) {
      page.kept[i] = false;
      page.outside++;
      page.isHorizontal[i] = false;
    }
    if (placeless.length > 0) page.horizontal = page.horizontal.filter((i) => page.isHorizontal[i]);
  }
  return page;
}

/**
 * Of the lines given (lines of no area), those whose characters, two or more, all stand at one origin: the
 * characters of a marked-content ActualText over an image or a path (a figure's description), which mupdf writes
 * as a line although no glyph was drawn; poppler, reading glyphs, leaves them out. A glyph of no size (a Type 3
 * glyph without a box) is still read.
 */
function placelessLines(stext: StructuredText, candidates: ReadonlySet<number>): number[] {
  const found: number[] = [];
  let line = -1;
  let count = 0;
  let x = Number.NaN;
  let y = Number.NaN;
  let oneOrigin = true;
  stext.walk({
    beginLine() {
      line++;
      count = 0;
      oneOrigin = true;
    },
    onChar(_c, origin) {
      if (!candidates.has(line)) return;
      if (count > 0 && (origin[0] !== x || origin[1] !== y)) oneOrigin = false;
      x = origin[0];
      y = origin[1];
      count++;
    },
    endLine() {
      if (candidates.has(line) && oneOrigin && count >= 2) found.push(line);
    },
  });
  return found;
}

/**
 * Each line's text from asText, which writes every line of a text block followed by a newline and every block
 * followed by one more (and nothing for image blocks); undefined when the text does not have exactly that shape
 * (a glyph mapped to a newline), and then the page keeps mupdf's order.
 */
function splitLines(raw: string, linesPerBlock: number[]): string[] | undefined {
  const parts = raw.split("\n");
  const texts: string[] = [];
  let at = 0;
  for (const count of linesPerBlock) {
    for (let k = 0; k < count; k++) texts.push(parts[at++] ?? "");
    if (parts[at++] !== "") return undefined;
  }
  // What follows the last block's newline is the empty string after it.
  return at === parts.length - 1 && parts[at] === "" ? texts : undefined;
}

/** Whether most letters of `text` are of right-to-left scripts. */
function isRightToLeft(text: string): boolean {
  // Most pages hold no right-to-left letter: one test, without listing every letter of the page.
  if (!RTL_LETTER_ANY.test(text)) return false;
  return (text.match(RTL_LETTER)?.length ?? 0) * 2 > (text.match(LETTER)?.length ?? 0);
}

/**
 * Lines end with a newline and a blank line sets off runs, as asText sets off blocks. Within a run, a change of
 * mupdf block is set off too, unless both blocks were cut by a gutter: then the boundary is where mupdf's block
 * ended across all columns, which is no paragraph break in this one.
 */
function joinRuns(runs: number[][], boxes: LayoutLine[], texts: string[]): string {
  const runOf = new Map<number, number>();
  const cut = new Set<number>();
  runs.forEach((run, r) => {
    for (const i of run) {
      const block = (boxes[i] as LayoutLine).block;
      const seen = runOf.get(block);
      if (seen === undefined) runOf.set(block, r);
      else if (seen !== r) cut.add(block);
    }
  });
  let out = "";
  for (const run of runs) {
    let block: number | undefined;
    for (const i of run) {
      const lineBlock = (boxes[i] as LayoutLine).block;
      if (block !== undefined && lineBlock !== block && !(cut.has(block) && cut.has(lineBlock))) out += "\n";
      block = lineBlock;
      out += `${texts[i] ?? ""}\n`;
    }
    out += "\n";
  }
  return out;
}

// A glyph continues a vertical column when it lies below the one before, at most this many of its widths lower.
const MAX_COLUMN_GAP_WIDTHS = 1;

/**
 * The asText shape, with the lines of a vertical column joined into one: mupdf makes a line of every glyph set in
 * vertical writing mode ("あ\nい\nう" for a column that reads あいう). Within a block, a vertical glyph that sits
 * below the one before it, across the same width, continues its line; anything else starts a new line.
 */
function joinVerticalColumns(texts: readonly string[], page: PageLines): string {
  let out = "";
  let at = 0;
  for (const count of page.linesPerBlock) {
    let line: string | undefined;
    let last: LayoutLine | undefined;
    for (let k = 0; k < count; k++, at++) {
      if (!page.kept[at]) continue;
      const box = page.boxes[at] as LayoutLine;
      const text = texts[at] ?? "";
      if (line !== undefined && last !== undefined && page.upright[at] && continuesColumn(last, box)) line += text;
      else {
        if (line !== undefined) out += `${line}\n`;
        line = text;
      }
      last = page.upright[at] ? box : undefined;
    }
    if (line !== undefined) out += `${line}\n\n`;
  }
  return out;
}

function continuesColumn(above: LayoutLine, below: LayoutLine): boolean {
  const width = Math.max(above.x1 - above.x0, below.x1 - below.x0);
  const across = Math.min(above.x1, below.x1) - Math.max(above.x0, below.x0);
  const gap = below.y0 - above.y1;
  return across >= 0.5 * Math.min(above.x1 - above.x0, below.x1 - below.x0) && below.y0 >= above.y0 && gap <= MAX_COLUMN_GAP_WIDTHS * width;
}

/** The asText shape: every line kept followed by a newline, every block with a line kept by one more. */
function joinBlocks(texts: readonly string[], linesPerBlock: readonly number[], kept: readonly boolean[]): string {
  let out = "";
  let at = 0;
  for (const count of linesPerBlock) {
    let any = false;
    for (let k = 0; k < count; k++, at++) {
      if (!kept[at]) continue;
      out += `${texts[at] ?? ""}\n`;
      any = true;
    }
    if (any) out += "\n";
  }
  return out;
}

// Four letter pairs in a row ("BBoolldd") is fake bold drawn glyph by glyph; "bookkeeper" has three. No letter is a
// line feed, so a match in the page's text is a match in one of its lines.
const DOUBLED_RUN = /(\p{L})\1(\p{L})\2(\p{L})\3(\p{L})\4/u;
// What any match of DOUBLED_RUN holds, found without its letter classes (a third of the time): four pairs of equal
// neighbouring code units in a row, or a surrogate (letters beyond the BMP are pairs of units; then DOUBLED_RUN
// decides).
const DOUBLED_UNITS = /(.)\1(.)\2(.)\3(.)\4|[\uD800-\uDFFF]/;

/** Some line (of `raw`, whose lines `texts` are) doubles its letters, or repeats another line's text over (nearly) the same box. */
function looksOverstruck(raw: string, texts: readonly string[], boxes: readonly LayoutLine[]): boolean {
  if (DOUBLED_UNITS.test(raw) && DOUBLED_RUN.test(raw)) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < texts.length; i++) {
    const text = (texts[i] ?? "").trim();
    if (text === "") continue;
    const before = seen.get(text);
    if (before !== undefined && overlapShare(boxes[before] as LayoutLine, boxes[i] as LayoutLine) > 0.5) return true;
    seen.set(text, i);
  }
  return false;
}

function overlapShare(a: LayoutLine, b: LayoutLine): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (w <= 0 || h <= 0) return 0;
  const smaller = Math.min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0));
  return smaller > 0 ? (w * h) / smaller : 0;
}

// A glyph repeated within these shares of the font size (across, and up or down) of the same glyph is a
// second stroke of it (poppler's figures are 0.1 and 0.2; fake bold offsets are a few hundredths to a tenth).
const OVERSTRIKE_ALONG = 0.15;
const OVERSTRIKE_ACROSS = 0.2;

// mupdf adds a space where a gap of more than 0.15 em follows a glyph only when that glyph is below U+0700 (Latin,
// Greek, Cyrillic, Hebrew, Arabic) or general punctuation (U+2000-U+20CF): after any other it writes none, however
// far the next glyph is drawn. Words placed one by one without space glyphs ran together in every other script that
// sets words apart with spaces: Korean ("침하게흐린품이"), Vietnamese (whose letters with two marks are in Latin
// Extended Additional), Devanagari and the other Indic scripts, Arabic presentation forms (the pages read with
// ligatures kept). A page with a letter, mark or digit of those is walked glyph by glyph, and such a gap after one is
// a space, as mupdf makes it after the scripts it covers. Scripts written without spaces between words (Chinese,
// Japanese, Thai, Lao, Khmer, Myanmar) and their punctuation take none.
const UNSPACED_LETTER =
  /(?=[\p{L}\p{M}\p{N}])(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u3000-\u303F\uFF00-\uFFEF])[^\u0000-\u06FF\u2000-\u20CF]/u;
const WORD_GAP = 0.15;

const MIN_ACTUAL_TEXT_RUN = 3;

// What mupdf makes of ZapfDingbats' a1–a31 (its check marks, crosses and hands): C0 controls.
const SUSPECT_DINGBAT = /[\u0001-\u0008\u000B-\u001F]/;

/**
 * Each line's text with overstruck repeats dropped, ZapfDingbats mapped and (with `spaceWords`) the spaces mupdf
 * leaves out after glyphs of the scripts it does not space (UNSPACED_LETTER) put back. mupdf's walk hands each glyph's character over as one UTF-16 unit (a
 * character beyond the BMP is cut), so the edits are applied to the line as asText wrote it, one code point per
 * glyph, whenever the two agree on the count. With `bidirectional`, a line holding a right-to-left letter is put in
 * logical order from where its glyphs stand (pdf-bidi.ts).
 */
function readGlyphs(stext: StructuredText, written: readonly string[] | undefined, spaceWords = false, bidirectional = false): string[] {
  const lines: string[] = [];
  // Placed glyphs by character and coarse cell, to find a repeat near one already kept.
  const placed = new Map<string, [number, number, number][]>();
  const isRepeat = (c: string, x: number, y: number, size: number): boolean => {
    const cell = Math.max(size, 1);
    const cx = Math.floor(x / cell);
    const cy = Math.floor(y / cell);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const [px, py, ps] of placed.get(`${c}|${cx + dx}|${cy + dy}`) ?? []) {
          if (Math.abs(ps - size) <= size * 0.1 && Math.abs(px - x) <= size * OVERSTRIKE_ALONG && Math.abs(py - y) <= size * OVERSTRIKE_ACROSS) return true;
        }
      }
    }
    const key = `${c}|${cx}|${cy}`;
    const list = placed.get(key);
    if (list) list.push([x, y, size]);
    else placed.set(key, [[x, y, size]]);
    return false;
  };
  // Per glyph of the line: the character to write, or undefined to keep asText's own.
  let edits: (string | undefined)[] = [];
  let runes = "";
  const dingbatFonts = new Map<string, boolean>();
  // The line's direction, and each glyph's start and end along it and its size (with `spaceWords`).
  let direction: readonly number[] = [1, 0];
  let starts: number[] = [];
  let ends: number[] = [];
  let sizes: number[] = [];
  // Glyphs in a row at one origin: three or more are the characters of a marked-content ActualText, which mupdf
  // places where the glyphs they replace begin, in the file's (logical) order (bench d05).
  let x = Number.NaN;
  let y = Number.NaN;
  let atOnePlace = 0;
  let placeless = false;
  stext.walk({
    beginLine(_bbox, _wmode, lineDirection) {
      edits = [];
      runes = "";
      atOnePlace = 0;
      placeless = false;
      direction = lineDirection;
      starts = [];
      ends = [];
      sizes = [];
    },
    onChar(c, origin, font, size, quad) {
      runes += c;
      atOnePlace = origin[0] === x && origin[1] === y ? atOnePlace + 1 : 1;
      if (atOnePlace >= MIN_ACTUAL_TEXT_RUN) placeless = true;
      x = origin[0];
      y = origin[1];
      const name = font.getName();
      let dingbats = dingbatFonts.get(name);
      if (dingbats === undefined) dingbatFonts.set(name, (dingbats = isDingbatsFont(name)));
      const mapped = dingbats ? dingbatCharacter(c) : c;
      edits.push(mapped.trim() !== "" && isRepeat(mapped, origin[0], origin[1], size) ? "" : mapped === c ? undefined : mapped);
      if (spaceWords || bidirectional) {
        // Where the glyph starts (its origin) and ends (its quad's upper right corner) along the line.
        const along = (x: number, y: number): number => x * (direction[0] as number) + y * (direction[1] as number);
        const start = along(origin[0], origin[1]);
        starts.push(start);
        ends.push(start + along(quad[2] - quad[0], quad[3] - quad[1]));
        sizes.push(size);
      }
    },
    endLine() {
      const own = written?.[lines.length];
      if (placeless) {
        // Such a line is the file's own text: nothing is dropped, mapped, spaced or reordered in it.
        lines.push(own ?? runes);
        return;
      }
      const points = own === undefined ? undefined : [...own];
      const chars = (points !== undefined && points.length === edits.length ? points : [...runes]).map((own, k) => edits[k] ?? own);
      if (spaceWords) spaceWordsApart(chars, starts, ends, sizes);
      const line = chars.join("");
      lines.push(bidirectional && RTL_LETTER_ANY.test(line) ? logicalLine(chars, starts, ends) : line);
    },
  });
  return lines;
}

/**
 * Puts a space before each glyph of a line drawn more than WORD_GAP em after a glyph of a script mupdf does not space
 * (UNSPACED_LETTER), onwards along the line or, right to left, back from where that glyph began. A glyph without
 * width (a combining mark) neither ends a word nor starts one; a space glyph ends the word.
 */
function spaceWordsApart(chars: string[], starts: readonly number[], ends: readonly number[], sizes: readonly number[]): void {
  let before = -1;
  for (let k = 0; k < chars.length; k++) {
    const c = chars[k] as string;
    if (c === "") continue; // an overstruck repeat, dropped
    if (c.trim() === "") {
      before = -1;
      continue;
    }
    const start = starts[k] as number;
    const end = ends[k] as number;
    const size = sizes[k] as number;
    if (!(end - start > 0.01 * size)) continue;
    if (before >= 0 && UNSPACED_LETTER.test(chars[before] as string)) {
      const gap = start >= (starts[before] as number) ? start - (ends[before] as number) : (starts[before] as number) - end;
      if (gap > WORD_GAP * size) chars[k] = ` ${c}`;
    }
    before = k;
  }
}
