/**
 * @module brief/sentences — a page's text cut into sentences with their offsets. Intl.Segmenter
 * splits after every abbreviation ("Dr.", "U.S.", "e.g.", "J."), so a segment ending in one, or a
 * next segment starting in lower case or with a digit, is merged back.
 */
export interface Sentence {
  /** Position in page order (0-based). */
  readonly index: number;
  readonly text: string;
  /** Offsets into the page text in UTF-16 code units, end exclusive, trimmed. */
  readonly start: number;
  readonly end: number;
}

const abbreviations = new Set(
  (
    "mr mrs ms dr prof sr jr st mt ft no nos vs etc al fig figs eq eqs ed eds vol vols p pp ch sec art approx dept est inc ltd co corp bros " +
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun gen col lt sgt capt gov sen rep rev hon pres " +
    "e.g i.e u.s u.k u.n a.m p.m ph.d b.a m.a cf ca"
  ).split(" "),
);

/** The segment ends in an abbreviation or an initial, so the sentence goes on. */
function endsInAbbreviation(segment: string): boolean {
  const m = /(?:^|[\s(["'])([A-Za-z](?:[A-Za-z.]*[A-Za-z])?)\.\s*$/.exec(segment);
  if (!m) return false;
  const word = m[1]!;
  if (word.length === 1) return true;
  return abbreviations.has(word.toLowerCase());
}

/** The next segment cannot start a sentence (lower case, digit, closing punctuation). */
function continues(segment: string): boolean {
  return /^\s*[a-z0-9\u00df-\u00ff,;:)\]%]/.test(segment);
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(language: string): Intl.Segmenter {
  let s = segmenters.get(language);
  if (!s) {
    s = new Intl.Segmenter(language || "en", { granularity: "sentence" });
    segmenters.set(language, s);
  }
  return s;
}

export function splitSentences(text: string, language = "en"): Sentence[] {
  const raw: { start: number; end: number }[] = [];
  for (const { segment, index } of segmenter(language).segment(text)) {
    const last = raw[raw.length - 1];
    // Only the tail matters: the last word and whether a line break ends it.
    const previous = last ? text.slice(Math.max(last.start, last.end - 32), last.end) : "";
    // A line break always ends a sentence (headings, list items).
    if (last && !/\n\s*$/.test(previous) && (endsInAbbreviation(previous) || continues(segment))) last.end = index + segment.length;
    else raw.push({ start: index, end: index + segment.length });
  }
  const out: Sentence[] = [];
  for (const r of raw) {
    let start = r.start;
    let end = r.end;
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    if (end > start) out.push({ index: out.length, text: text.slice(start, end), start, end });
  }
  return out;
}
