/**
 * @module web/extract/content-tokens — reading start tags out of raw HTML without a parser, for the
 * passes that shrink a page before happy-dom parses it. Linear: searches only move forward, and
 * a search that found nothing is remembered so it is never repeated from a later position.
 */

export function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

export function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Finds the next occurrence of a string, remembering a miss so no later search rescans. */
export class Finder {
  private found = -1;
  private searchedFrom = Number.POSITIVE_INFINITY;

  constructor(
    private readonly text: string,
    private readonly target: string,
  ) {}

  next(from: number): number {
    if (from >= this.searchedFrom && (this.found === -1 || from <= this.found)) return this.found;
    this.searchedFrom = from;
    this.found = this.text.indexOf(this.target, from);
    return this.found;
  }
}

/** Case-insensitive search for `</name` (then a space, `/` or `>`), with the same memory of a miss. */
export class EndTagFinder {
  private readonly pattern: RegExp;
  private found = -1;
  private searchedFrom = Number.POSITIVE_INFINITY;

  constructor(
    private readonly text: string,
    name: string,
  ) {
    this.pattern = new RegExp(`</${name}(?=[\\s/>])`, "gi");
  }

  next(from: number): number {
    if (from >= this.searchedFrom && (this.found === -1 || from <= this.found)) return this.found;
    this.searchedFrom = from;
    this.pattern.lastIndex = from;
    this.found = this.pattern.exec(this.text)?.index ?? -1;
    return this.found;
  }
}

export interface TagAttribute {
  /** Lower-cased. */
  name: string;
  /** As written (entities not decoded). */
  value: string;
  /** The attribute's source, name to end of value. */
  start: number;
  end: number;
}

export interface StartTag {
  /** Lower-cased. */
  name: string;
  /** Index just past the name. */
  nameEnd: number;
  attributes: TagAttribute[];
  /** Index just past the tag's `>`. */
  end: number;
  selfClosing: boolean;
}

export interface QuoteFinders {
  double: Finder;
  single: Finder;
}

export function createQuoteFinders(html: string): QuoteFinders {
  return { double: new Finder(html, '"'), single: new Finder(html, "'") };
}

/** The end of a tag name starting at `from` (before a space, `/` or `>`). */
export function tagNameEnd(html: string, from: number): number {
  let end = from;
  while (end < html.length) {
    const c = html.charCodeAt(end);
    if (isSpace(c) || c === 47 || c === 62) break;
    end++;
  }
  return end;
}

/**
 * Reads the start tag at `at` (`<` then a letter) as the HTML tokenizer does (quoted values may
 * hold `>`). Returns the index where reading stopped instead when the tag does not end cleanly
 * (an unclosed quote, the end of the input): such a tag is best left as written.
 */
export function readStartTag(html: string, at: number, quotes: QuoteFinders): StartTag | number {
  const length = html.length;
  const nameEnd = tagNameEnd(html, at + 2);
  const name = html.slice(at + 1, nameEnd).toLowerCase();
  const attributes: TagAttribute[] = [];
  let i = nameEnd;
  for (;;) {
    while (i < length && (isSpace(html.charCodeAt(i)) || (html.charCodeAt(i) === 47 && html.charCodeAt(i + 1) !== 62))) i++;
    if (i >= length) return i;
    const code = html.charCodeAt(i);
    if (code === 62 || code === 47) break; // ">" or "/>"
    const start = i;
    i++;
    for (; i < length; i++) {
      const c = html.charCodeAt(i);
      if (isSpace(c) || c === 47 || c === 62 || c === 61) break;
    }
    const attributeName = html.slice(start, i).toLowerCase();
    let end = i;
    let value = "";
    let j = i;
    while (j < length && isSpace(html.charCodeAt(j))) j++;
    if (html.charCodeAt(j) === 61) {
      j++;
      while (j < length && isSpace(html.charCodeAt(j))) j++;
      const quote = html.charCodeAt(j);
      if (quote === 34 || quote === 39) {
        const close = (quote === 34 ? quotes.double : quotes.single).next(j + 1);
        if (close < 0) return j + 1;
        value = html.slice(j + 1, close);
        end = close + 1;
      } else {
        const valueStart = j;
        while (j < length && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 62) j++;
        value = html.slice(valueStart, j);
        end = j;
      }
      i = end;
    }
    attributes.push({ name: attributeName, value, start, end });
  }
  const selfClosing = html.charCodeAt(i) === 47;
  return { name, nameEnd, attributes, end: i + (selfClosing ? 2 : 1), selfClosing };
}
