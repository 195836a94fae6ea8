/**
 * @module web/pdf-page-text — a page's text from mupdf's structured text, in reading order.
 *
 * Most pages come out as mupdf writes them (`asText`: lines, blocks set off by a blank line). Where mupdf's lines
 * interleave columns (pdf-layout.ts finds them from the line boxes, walked without their characters), the page
 * is rebuilt from the same lines, cut out of `asText`, column by column.
 */
import type { StructuredText } from "mupdf";
import { type LayoutLine, orderLinesByColumns } from "./pdf-layout.ts";

// Letters of right-to-left scripts, against all letters: a page mostly in these reads its columns right to left.
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/gu;
const LETTER = /\p{L}/gu;

/**
 * The page's raw text (before canonicalization), columns read one after another. Lines that do not run left to
 * right (a rotated margin note, a diagonal watermark) take no part in finding columns and come last.
 */
export function readPageText(stext: StructuredText): string {
  const page = collectLines(stext);
  const raw = stext.asText();
  // Vertical writing (CJK) reads in columns of its own; mostly rotated text is a rotated page: mupdf's order.
  if (page.vertical || page.horizontal.length * 2 < page.boxes.length) return raw;
  const ordered = orderLinesByColumns(page.horizontal.map((i) => page.boxes[i] as LayoutLine));
  if (ordered === undefined) return raw;
  const texts = splitLines(raw, page.linesPerBlock);
  if (texts === undefined || texts.length !== page.boxes.length) return raw;
  const order = isRightToLeft(texts) ? orderLinesByColumns(page.horizontal.map((i) => page.boxes[i] as LayoutLine), { rightToLeft: true }) : ordered;
  if (order === undefined) return raw;
  const runs = order.map((run) => run.map((k) => page.horizontal[k] as number));
  const others = page.boxes.map((_, i) => i).filter((i) => !page.isHorizontal[i]);
  if (others.length > 0) runs.push(others);
  return joinRuns(runs, page.boxes, texts);
}

interface PageLines {
  /** Every text line's box, in mupdf's order. */
  boxes: LayoutLine[];
  /** Indices of the lines that run left to right. */
  horizontal: number[];
  isHorizontal: boolean[];
  /** Some line is in vertical writing mode. */
  vertical: boolean;
  /** Lines per text block, in order. */
  linesPerBlock: number[];
}

/** The text lines' boxes and directions, walked without their characters. */
function collectLines(stext: StructuredText): PageLines {
  const page: PageLines = { boxes: [], horizontal: [], isHorizontal: [], vertical: false, linesPerBlock: [] };
  stext.walk({
    beginTextBlock() {
      page.linesPerBlock.push(0);
    },
    beginLine(bbox, wmode, direction) {
      const block = page.linesPerBlock.length - 1;
      page.linesPerBlock[block] = (page.linesPerBlock[block] ?? 0) + 1;
      const horizontal = wmode === 0 && Math.abs(direction[1]) < 1e-3 && direction[0] > 0;
      if (wmode !== 0) page.vertical = true;
      if (horizontal) page.horizontal.push(page.boxes.length);
      page.isHorizontal.push(horizontal);
      page.boxes.push({ x0: bbox[0], y0: bbox[1], x1: bbox[2], y1: bbox[3], block });
    },
  });
  return page;
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

function isRightToLeft(texts: string[]): boolean {
  let rtl = 0;
  let letters = 0;
  for (const text of texts) {
    rtl += text.match(RTL_LETTER)?.length ?? 0;
    letters += text.match(LETTER)?.length ?? 0;
  }
  return rtl * 2 > letters;
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
