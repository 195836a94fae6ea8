/**
 * @module web/pdf/pdf-layout — reading order for multi-column PDF pages, from line bounding boxes alone.
 *
 * mupdf keeps lines in the order the page draws them and groups them into blocks by proximity; when a producer
 * draws a page row by row across its columns (bench d16, an IRS booklet), one block spans all the columns and
 * their lines interleave. This module finds the columns (a vertical strip of whitespace that few lines cross,
 * with prose on both sides of it) and orders the lines column by column; lines that cross the strip (titles,
 * headers spanning the columns) stay in place by their vertical position and split the columns into bands.
 * It is pure geometry: deterministic, linear in the page width plus n log n in its lines per level.
 */

/** A text line's box (y grows downwards, as in mupdf) and the mupdf block it came from. */
export interface LayoutLine {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  block: number;
}

export interface ColumnOrderOptions {
  /** Columns are read right to left (Arabic, Hebrew pages). */
  rightToLeft?: boolean;
}

/**
 * The lines' reading order as runs of indices into `lines` (a column's piece of a band, or full-width lines
 * between bands; runs are set off from each other like blocks), or `undefined` when the order given stands: no
 * columns were found, or the order given already reads them one after another (then the caller keeps mupdf's
 * text exactly as it is).
 * @example orderLinesByColumns(lines)?.flat() // [0, 2, 4, 1, 3, 5] for two interleaved columns
 */
export function orderLinesByColumns(lines: readonly LayoutLine[], options: ColumnOrderOptions = {}): number[][] | undefined {
  if (lines.length < 2 * MIN_COLUMN_LINES) return undefined;
  const all = new Array<number>(lines.length);
  const middles = new Float64Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as LayoutLine;
    all[i] = i;
    middles[i] = (l.y0 + l.y1) / 2;
  }
  const runs = orderRegion({ lines, middles }, all, options.rightToLeft === true, 0);
  return isInterleaved(runs, lines.length) ? runs : undefined;
}

/**
 * Whether the order given hops between the runs found more than a few times. A producer that writes column after
 * column (LaTeX, most) gives an order that reads well, up to a few lines placed elsewhere (a page header beside
 * the title, a margin note), which its order may well have right; only one that writes row by row across the
 * columns (bench d16) needs reordering.
 */
function isInterleaved(runs: number[][], count: number): boolean {
  const runOf = new Int32Array(count);
  for (let r = 0; r < runs.length; r++) for (const i of runs[r] as number[]) runOf[i] = r;
  let hops = 0;
  for (let i = 1; i < count; i++) if (runOf[i] !== runOf[i - 1]) hops++;
  return hops > MAX_HOPS_PER_RUN * runs.length && hops >= MIN_HOP_SHARE * count;
}

// A column holds at least this many lines within a band.
const MIN_COLUMN_LINES = 3;
// A gutter is at least this wide, in median line heights, in every band (d16: 14 pt between columns of 8.8 pt
// lines, 8 pt where a box's heading reaches into it; a LaTeX two-column gutter is 2.4 line heights).
const MIN_GUTTER_HEIGHTS = 0.75;
// A column's median line is at least this long, in line heights (about 16 characters): prose, not the short
// cells of a table's first column, which must keep its rows.
const MIN_COLUMN_LINE_HEIGHTS = 8;
// The order given stands if it hops between the runs found at most this many times per run (each run entered
// once, plus a line or so placed elsewhere per run), or on fewer than this share of its lines (a page header and
// footer placed elsewhere on a page of 190 lines: 8 hops). Row by row across columns hops on most lines.
const MAX_HOPS_PER_RUN = 2;
const MIN_HOP_SHARE = 1 / 8;
// Nested splits (a column of columns) go no deeper than this.
const MAX_DEPTH = 6;
// Coverage is counted in cells of at least one unit, at most this many across the text.
const MAX_CELLS = 2000;
// Box edges this close (in units) to a cell's edge do not cover the cell (rounding in mupdf's boxes).
const EDGE_TOLERANCE = 0.5;

/** The lines and each one's vertical middle, computed once for every region and candidate gutter. */
interface Page {
  lines: readonly LayoutLine[];
  middles: Float64Array;
}

interface Split {
  /** Lines that cross the gutter, top to bottom. */
  crossers: number[];
  /** The lines between consecutive crossers (bands[k] lies above crossers[k]), split by the gutter. */
  bands: { left: number[]; right: number[]; columnar: boolean }[];
  columnarLines: number;
}

function orderRegion(page: Page, region: number[], rightToLeft: boolean, depth: number): number[][] {
  const split = depth < MAX_DEPTH ? findSplit(page, region) : undefined;
  if (!split) return [region];
  const runs: number[][] = [];
  // Full-width material (crossers and bands that are not columns) accumulates into one run, read in the
  // order given, until a band of columns interrupts it.
  let flowing: number[] = [];
  const flush = (): void => {
    if (flowing.length > 0) runs.push(flowing.sort((a, b) => a - b));
    flowing = [];
  };
  split.bands.forEach((band, k) => {
    if (band.columnar) {
      flush();
      const [first, second] = rightToLeft ? [band.right, band.left] : [band.left, band.right];
      runs.push(...orderRegion(page, first, rightToLeft, depth + 1), ...orderRegion(page, second, rightToLeft, depth + 1));
    } else {
      flowing.push(...band.left, ...band.right);
    }
    const crosser = split.crossers[k];
    if (crosser !== undefined) flowing.push(crosser);
  });
  flush();
  return runs;
}

/** The gutter that puts the most lines into columns, or undefined when there is none. */
function findSplit(page: Page, region: number[]): Split | undefined {
  if (region.length < 2 * MIN_COLUMN_LINES) return undefined;
  const { lines } = page;
  let left = Infinity;
  let right = -Infinity;
  const heights = new Float64Array(region.length);
  for (let k = 0; k < region.length; k++) {
    const l = lines[region[k] as number] as LayoutLine;
    left = Math.min(left, l.x0);
    right = Math.max(right, l.x1);
    heights[k] = l.y1 - l.y0;
  }
  const lineHeight = median(heights);
  if (!(right - left > 0) || !(lineHeight > 0)) return undefined;

  const unit = Math.max(1, (right - left) / MAX_CELLS);
  const cells = Math.ceil((right - left) / unit);
  // coverage[c]: how many lines cross cell c (counted through a difference array).
  const delta = new Int32Array(cells + 1);
  for (const i of region) {
    const l = lines[i] as LayoutLine;
    const from = Math.max(0, Math.floor((l.x0 - left + EDGE_TOLERANCE) / unit));
    const to = Math.min(cells, Math.ceil((l.x1 - left - EDGE_TOLERANCE) / unit));
    if (to > from) {
      delta[from] = (delta[from] as number) + 1;
      delta[to] = (delta[to] as number) - 1;
    }
  }
  const coverage = new Int32Array(cells);
  let running = 0;
  for (let c = 0; c < cells; c++) {
    running += delta[c] as number;
    coverage[c] = running;
  }

  const minGap = MIN_GUTTER_HEIGHTS * lineHeight;
  // The highest coverage left of each cell and right of it: a gutter is a valley between columns.
  const peakBefore = new Int32Array(cells);
  const peakAfter = new Int32Array(cells);
  for (let c = 1; c < cells; c++) peakBefore[c] = Math.max(peakBefore[c - 1] as number, coverage[c - 1] as number);
  for (let c = cells - 2; c >= 0; c--) peakAfter[c] = Math.max(peakAfter[c + 1] as number, coverage[c + 1] as number);
  let best: Split | undefined;
  // Candidates: the floor of each valley (a stretch of equal coverage, lower than the stretches on either side,
  // away from the text's edges) that is much lower than the text on both sides. Lines that end inside the gutter
  // (a title reaching into it) make it narrow at its floor, so the gutter's width is measured per band instead.
  // "Much lower": the text on each side is at least 1.5 times as thick (a box spanning two columns crosses them).
  for (let c = 0; c < cells; ) {
    const start = c;
    const level = coverage[c] as number;
    while (c < cells && coverage[c] === level) c++;
    if (start === 0 || c === cells) continue;
    if ((coverage[start - 1] as number) < level || (coverage[c] as number) < level) continue;
    const deep = level + Math.max(MIN_COLUMN_LINES, Math.ceil(level / 2));
    if ((peakBefore[start] as number) < deep || (peakAfter[c - 1] as number) < deep) continue;
    const x = left + ((start + c) / 2) * unit;
    // Only the lines on either side of the gutter can be in its columns: a candidate whose bound cannot pass the
    // tests below, or beat the best split so far, is not split.
    const crossing = countCrossers(lines, region, x);
    const bound = region.length - crossing;
    if (bound === 0 || bound < crossing) continue;
    if (best && (bound < best.columnarLines || (bound === best.columnarLines && crossing >= best.crossers.length))) continue;
    const split = splitAt(page, region, x, lineHeight, minGap);
    if (split.columnarLines === 0 || split.columnarLines < split.crossers.length) continue;
    if (!best || split.columnarLines > best.columnarLines || (split.columnarLines === best.columnarLines && split.crossers.length < best.crossers.length)) {
      best = split;
    }
  }
  return best;
}

/** How many of the region's lines cross x (splitAt's crossers). */
function countCrossers(lines: readonly LayoutLine[], region: number[], x: number): number {
  let n = 0;
  for (const i of region) {
    const l = lines[i] as LayoutLine;
    if (l.x1 > x && l.x0 < x) n++;
  }
  return n;
}

function splitAt(page: Page, region: number[], x: number, lineHeight: number, minGap: number): Split {
  const { lines, middles } = page;
  // Each line's side of the gutter: left, right, or across it (a crosser).
  const sides = new Uint8Array(region.length);
  const crossers: number[] = [];
  for (let k = 0; k < region.length; k++) {
    const i = region[k] as number;
    const l = lines[i] as LayoutLine;
    if (l.x1 <= x) sides[k] = LEFT;
    else if (l.x0 >= x) sides[k] = RIGHT;
    else crossers.push(i);
  }
  crossers.sort((a, b) => (middles[a] as number) - (middles[b] as number) || a - b);
  const crosserMiddles = new Float64Array(crossers.length);
  for (let k = 0; k < crossers.length; k++) crosserMiddles[k] = middles[crossers[k] as number] as number;
  const bands: Split["bands"] = [];
  for (let k = 0; k <= crossers.length; k++) bands.push({ left: [], right: [], columnar: false });
  for (let k = 0; k < region.length; k++) {
    const side = sides[k];
    if (side === ACROSS) continue;
    const index = region[k] as number;
    const y = middles[index] as number;
    // The band below the last crosser whose middle is above this line's middle.
    let lo = 0;
    let hi = crosserMiddles.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((crosserMiddles[mid] as number) < y) lo = mid + 1;
      else hi = mid;
    }
    const band = bands[lo] as Split["bands"][number];
    (side === LEFT ? band.left : band.right).push(index);
  }
  let columnarLines = 0;
  for (const band of bands) {
    // A side of fewer lines is no column (isColumn's first test), checked before any geometry.
    if (band.left.length < MIN_COLUMN_LINES || band.right.length < MIN_COLUMN_LINES) continue;
    const leftExtent = verticalExtent(lines, band.left);
    const rightExtent = verticalExtent(lines, band.right);
    band.columnar =
      gapBetween(lines, band.left, band.right, leftExtent, rightExtent) >= minGap &&
      isColumn(lines, band.left, rightExtent, lineHeight) &&
      isColumn(lines, band.right, leftExtent, lineHeight);
    if (band.columnar) columnarLines += band.left.length + band.right.length;
  }
  return { crossers, bands, columnarLines };
}

const ACROSS = 0;
const LEFT = 1;
const RIGHT = 2;

/**
 * The whitespace between the left lines and the right ones, over the lines level with the other side: a page
 * number or a footer below the columns may sit in the gutter.
 */
function gapBetween(
  lines: readonly LayoutLine[],
  left: number[],
  right: number[],
  [leftTop, leftBottom]: [number, number],
  [rightTop, rightBottom]: [number, number],
): number {
  let end = -Infinity;
  let start = Infinity;
  for (const i of left) {
    const l = lines[i] as LayoutLine;
    if (l.y1 > rightTop && l.y0 < rightBottom) end = Math.max(end, l.x1);
  }
  for (const i of right) {
    const l = lines[i] as LayoutLine;
    if (l.y1 > leftTop && l.y0 < leftBottom) start = Math.min(start, l.x0);
  }
  return start - end;
}

function verticalExtent(lines: readonly LayoutLine[], side: number[]): [top: number, bottom: number] {
  let top = Infinity;
  let bottom = -Infinity;
  for (const i of side) {
    top = Math.min(top, (lines[i] as LayoutLine).y0);
    bottom = Math.max(bottom, (lines[i] as LayoutLine).y1);
  }
  return [top, bottom];
}

/** Prose beside prose: enough long lines in `side`, level with the lines of the other side (its vertical extent). */
function isColumn(lines: readonly LayoutLine[], side: number[], [top, bottom]: [number, number], lineHeight: number): boolean {
  if (side.length < MIN_COLUMN_LINES) return false;
  const widths = new Float64Array(side.length);
  for (let k = 0; k < side.length; k++) {
    const l = lines[side[k] as number] as LayoutLine;
    widths[k] = l.x1 - l.x0;
  }
  if (median(widths) < MIN_COLUMN_LINE_HEIGHTS * lineHeight) return false;
  // Side by side: at least MIN_COLUMN_LINES of these lines lie within the other side's vertical extent.
  let level = 0;
  for (const i of side) {
    const l = lines[i] as LayoutLine;
    if (l.y1 > top && l.y0 < bottom) level++;
  }
  return level >= MIN_COLUMN_LINES;
}

/** The median of `values`, which it sorts (a typed array sorts numerically, without a comparator). */
function median(values: Float64Array): number {
  const sorted = values.sort();
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? 0 : sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
