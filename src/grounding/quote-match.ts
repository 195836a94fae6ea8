/**
 * @module grounding/quote-match — finds a model's quote in the page text, verbatim or after
 * normalising both sides the same way (whitespace runs, case, Unicode NFKC, number formatting:
 * `1,299.00` = `1299`), and answers where it is in code points of the text. Every normalised
 * character remembers the UTF-16 span of the text it came from, so a normalised match still
 * points at (and returns) the page's own characters.
 */
import { countCodePoints } from "../web/text/text-output.ts";

export interface QuoteMatch {
  /** The page's own characters at the match (verbatim, whatever the model wrote). */
  readonly quote: string;
  /** Code points into the text, end exclusive. */
  readonly start: number;
  readonly end: number;
  readonly match: "exact" | "normalized";
}

interface Normalized {
  readonly text: string;
  /** For each UTF-16 unit of `text`: the UTF-16 span of the source it came from. */
  readonly from: readonly number[];
  readonly to: readonly number[];
}

const SPACE = /\s/u;
/** A number as pages write it: optional sign, digits with thousands commas or not, optional fraction. */
const NUMBER = /-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/g;

/** NFKC, lower case and one space per whitespace run, with the source span of every output unit. */
function foldCharacters(source: string): Normalized {
  let text = "";
  const from: number[] = [];
  const to: number[] = [];
  let index = 0;
  for (const cp of source) {
    const end = index + cp.length;
    const folded = cp.normalize("NFKC").toLowerCase();
    for (const unit of folded) {
      if (SPACE.test(unit)) {
        if (text === "" || text.endsWith(" ")) continue;
        text += " ";
      } else text += unit;
      for (let k = 0; k < unit.length; k++) {
        from.push(index);
        to.push(end);
      }
    }
    index = end;
  }
  while (text.endsWith(" ")) {
    text = text.slice(0, -1);
    from.pop();
    to.pop();
  }
  return { text, from, to };
}

/** `1,299.00` → `1299`, `3.50` → `3.5`: the canonical spelling of a number. */
export function canonicalNumber(written: string): string {
  let plain = written.replace(/,/g, "");
  if (plain.includes(".")) plain = plain.replace(/0+$/, "").replace(/\.$/, "");
  return plain;
}

/** Rewrites every number in an already folded text to its canonical spelling, keeping the spans. */
function canonicalNumbers(input: Normalized): Normalized {
  let text = "";
  const from: number[] = [];
  const to: number[] = [];
  let last = 0;
  const copy = (startAt: number, endAt: number) => {
    text += input.text.slice(startAt, endAt);
    for (let i = startAt; i < endAt; i++) {
      from.push(input.from[i]!);
      to.push(input.to[i]!);
    }
  };
  for (const m of input.text.matchAll(NUMBER)) {
    const at = m.index;
    // Part of a longer token (a version string "1.2.3", an id "a1,234"): leave it as written.
    const before = input.text[at - 1];
    const after = input.text[at + m[0].length];
    if ((before !== undefined && /[\p{L}\d.,]/u.test(before)) || (after !== undefined && /[\p{L}\d]/u.test(after))) continue;
    const canonical = canonicalNumber(m[0]);
    if (canonical === m[0]) continue;
    copy(last, at);
    const spanFrom = input.from[at]!;
    const spanTo = input.to[at + m[0].length - 1]!;
    text += canonical;
    for (let k = 0; k < canonical.length; k++) {
      from.push(spanFrom);
      to.push(spanTo);
    }
    last = at + m[0].length;
  }
  if (last === 0) return input;
  copy(last, input.text.length);
  return { text, from, to };
}

export function normalize(source: string): Normalized {
  return canonicalNumbers(foldCharacters(source));
}

/** Folded, canonical form of a short string (a quote or a value), for comparisons without offsets. */
export function normalForm(source: string): string {
  return normalize(source).text;
}

/** A page text prepared once for many quotes. */
export interface QuoteIndex {
  readonly text: string;
  find(quote: string): QuoteMatch | undefined;
}

export function indexText(text: string): QuoteIndex {
  let normalized: Normalized | undefined;
  const codePointsBefore = (utf16: number) => countCodePoints(text.slice(0, utf16));
  const at = (from: number, to: number, match: QuoteMatch["match"]): QuoteMatch => {
    const start = codePointsBefore(from);
    const quote = text.slice(from, to);
    return { quote, start, end: start + countCodePoints(quote), match };
  };
  return {
    text,
    find(raw) {
      const quote = raw.trim();
      if (quote === "") return undefined;
      const exact = text.indexOf(quote);
      if (exact >= 0) return at(exact, exact + quote.length, "exact");
      const wanted = normalForm(quote);
      if (wanted === "") return undefined;
      normalized ??= normalize(text);
      const found = normalized.text.indexOf(wanted);
      if (found < 0) return undefined;
      return at(normalized.from[found]!, normalized.to[found + wanted.length - 1]!, "normalized");
    },
  };
}

/** Whether a plain string or number value is written inside its quote (both normalised). */
export function valueInQuote(value: string | number, quote: string): boolean {
  const normalQuote = normalForm(quote);
  if (typeof value === "number") {
    for (const m of normalQuote.matchAll(/-?\d+(?:\.\d+)?/g)) {
      if (Number(m[0]) === value || Number(m[0]) === Math.abs(value)) return true;
    }
    return false;
  }
  const normalValue = normalForm(value);
  return normalValue !== "" && normalQuote.includes(normalValue);
}
