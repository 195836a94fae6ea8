/**
 * @module web/pdf-page-text — a page's text from mupdf's structured text, in reading order.
 *
 * Most pages come out as mupdf writes them (`asText`: lines, blocks set off by a blank line). Where mupdf's lines
 * interleave columns (pdf-layout.ts finds them from line boxes, which cost well under a millisecond to walk), the
 * page is rebuilt from its lines (`asJSON`, a few milliseconds, paid only on such pages) column by column.
 */
import type { StructuredText } from "mupdf";
import { type LayoutLine, orderLinesByColumns } from "./pdf-layout.ts";

interface JsonPage {
  blocks: { type: string; lines?: { text: string }[] }[];
}

// Letters of right-to-left scripts, against all letters: a page mostly in these reads its columns right to left.
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/gu;
const LETTER = /\p{L}/gu;

/** The page's raw text (before canonicalization), columns read one after another. */
export function readPageText(stext: StructuredText): string {
  const boxes = collectLineBoxes(stext);
  if (boxes === undefined) return stext.asText();
  let order = orderLinesByColumns(boxes);
  if (order === undefined) return stext.asText();
  const texts = collectLineTexts(stext);
  if (texts.length !== boxes.length) return stext.asText();
  if (isRightToLeft(texts)) {
    order = orderLinesByColumns(boxes, { rightToLeft: true });
    if (order === undefined) return stext.asText();
  }
  return joinRuns(order, boxes, texts);
}

/** Line boxes in mupdf's order, or undefined when some line is not horizontal (vertical CJK, rotated text). */
function collectLineBoxes(stext: StructuredText): LayoutLine[] | undefined {
  const boxes: LayoutLine[] = [];
  let block = -1;
  let horizontal = true;
  stext.walk({
    beginTextBlock() {
      block++;
    },
    beginLine(bbox, wmode, direction) {
      if (wmode !== 0 || Math.abs(direction[1]) > 1e-3 || direction[0] <= 0) horizontal = false;
      boxes.push({ x0: bbox[0], y0: bbox[1], x1: bbox[2], y1: bbox[3], block });
    },
  });
  return horizontal ? boxes : undefined;
}

function collectLineTexts(stext: StructuredText): string[] {
  const page = JSON.parse(stext.asJSON()) as JsonPage;
  const texts: string[] = [];
  for (const block of page.blocks) {
    if (block.type !== "text") continue;
    for (const line of block.lines ?? []) texts.push(line.text);
  }
  return texts;
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
