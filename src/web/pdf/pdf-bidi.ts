/**
 * @module web/pdf/pdf-bidi — a line holding right-to-left letters, in logical order.
 *
 * A PDF draws text where it is seen: Hebrew and Arabic glyphs stand right to left on the page, whatever order the
 * content stream draws them in. mupdf reverses a line's text from its first right-to-left glyph to its end, so the
 * parts of a right-to-left line that run left to right (digits, Latin words) and the punctuation between them come out
 * in the wrong places ("עולם2024 שלום" for "שלום 2024 עולם", ".123 שלום" for "שלום 123."). Here the glyphs are set in
 * the order they stand on the page (visual order) and the Unicode Bidirectional Algorithm (bidi-js) reorders them, as a
 * viewer would reorder logical text for display: the reordering of a line's levels undoes itself. A bracket at a
 * right-to-left level is mirrored back (the glyph drawn for "(" at the right of a right-to-left run is a ")").
 * A combining mark (Hebrew points, Arabic vowel signs) goes after the glyph it is set on, and the letters mupdf gives
 * one place (a ligature it expands) stay together in mupdf's order. A line whose right-to-left letters mupdf gives
 * left to right along the page was not reversed by mupdf: those are the characters of a marked-content ActualText,
 * which mupdf sets in the file's (logical) order over the glyphs they stand for, and the line keeps mupdf's order.
 */
import bidiFactory from "bidi-js";

const bidi = bidiFactory();

const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/gu;
const LETTER = /\p{L}/gu;
const MARK = /^\p{M}/u;
const IS_LETTER = /^\p{L}/u;

interface Cluster {
  text: string;
  /** Where its first glyph starts and ends along the line. */
  start: number;
  end: number;
}

/**
 * The line's glyphs (each a character, "" for a glyph dropped, or a space and a character for a space put before it)
 * in logical order. `starts` and `ends`: where each glyph starts and ends along the line's direction. The paragraph
 * direction is the line's: right to left when most of its letters are of right-to-left scripts.
 */
export function logicalLine(glyphs: readonly string[], starts: readonly number[], ends: readonly number[]): string {
  if (!reversedByMupdf(glyphs, starts)) return glyphs.join("");
  const clusters: Cluster[] = [];
  const marks: { text: string; start: number }[] = [];
  let before: number | undefined;
  for (let k = 0; k < glyphs.length; k++) {
    const glyph = glyphs[k] as string;
    if (glyph === "") continue;
    const start = starts[k] as number;
    const end = ends[k] as number;
    const last = clusters[clusters.length - 1];
    if (glyph.length > 1 && glyph.startsWith(" ")) {
      // A space put between this glyph and the one before it: it stands between them, on whichever side that is.
      const at = before === undefined ? start : (before + start) / 2;
      clusters.push({ text: " ", start: at, end: at });
      clusters.push({ text: glyph.slice(1), start, end });
    } else if (MARK.test(glyph)) marks.push({ text: glyph, start });
    else if (last !== undefined && start === before && IS_LETTER.test(glyph) && IS_LETTER.test(last.text.slice(-1))) last.text += glyph;
    else clusters.push({ text: glyph, start, end });
    before = start;
  }
  // A mark goes after the glyph that starts nearest to where it starts: a mark is set at its glyph's origin (in
  // right-to-left text drawn left to right, that origin is also the end of the glyph to its left).
  for (const mark of marks) {
    let best: Cluster | undefined;
    let distance = Number.POSITIVE_INFINITY;
    for (const cluster of clusters) {
      if (cluster.text === " ") continue;
      const d = Math.abs(mark.start - cluster.start);
      if (d < distance) {
        distance = d;
        best = cluster;
      }
    }
    if (best) best.text += mark.text;
    else clusters.push({ text: mark.text, start: mark.start, end: mark.start });
  }
  // Visual order: left to right along the line (a stable sort keeps mupdf's order between glyphs at one place).
  clusters.sort((a, b) => a.start - b.start);
  // A space glyph drawn over another glyph separates nothing (a producer's trailing space laid over a "?").
  const kept = clusters.filter((c, i) => !(c.text === " " && (overlapsMostly(c, clusters[i - 1]) || overlapsMostly(c, clusters[i + 1]))));
  const text = kept.map((c) => c.text).join("");
  const rtl = (text.match(RTL_LETTER)?.length ?? 0) * 2 > (text.match(LETTER)?.length ?? 0);
  const levels = bidi.getEmbeddingLevels(text, rtl ? "rtl" : "ltr");
  // Each code unit's cluster; the reordered indices visit a cluster's units together (one level for all of them).
  const clusterAt: number[] = [];
  kept.forEach((c, i) => {
    for (let u = 0; u < c.text.length; u++) clusterAt.push(i);
  });
  let out = "";
  let previous = -1;
  for (const index of bidi.getReorderedIndices(text, levels)) {
    const at = clusterAt[index] as number;
    if (at === previous) continue;
    previous = at;
    const cluster = (kept[at] as Cluster).text;
    const mirrored = (levels.levels[index] as number) % 2 === 1 && cluster.length === 1 ? bidi.getMirroredCharacter(cluster) : null;
    out += mirrored ?? cluster;
  }
  return out;
}

/** Whether `space` (a space glyph with a width) lies more than half within a glyph that is not a space. */
function overlapsMostly(space: Cluster, other: Cluster | undefined): boolean {
  if (other === undefined || other.text.trim() === "") return false;
  const width = space.end - space.start;
  if (!(width > 0)) return false;
  const overlap = Math.min(space.end, Math.max(other.start, other.end)) - Math.max(space.start, Math.min(other.start, other.end));
  return overlap > width / 2;
}


const RTL_ONE = new RegExp(`^${RTL_LETTER.source}`, "u");

/** Whether no two right-to-left letters in a row in mupdf's order stand left to right along the line. */
function reversedByMupdf(glyphs: readonly string[], starts: readonly number[]): boolean {
  let before: number | undefined;
  for (let k = 0; k < glyphs.length; k++) {
    const glyph = glyphs[k] as string;
    if (!RTL_ONE.test(glyph)) {
      if (glyph !== "" && !MARK.test(glyph)) before = undefined;
      continue;
    }
    const start = starts[k] as number;
    if (before !== undefined && start > before) return false;
    before = start;
  }
  return true;
}
