/**
 * @module web/content-trim — drops markup that no extraction result reads, before parsing:
 * happy-dom makes a full node (with its own maps and caches) of every attribute and element, so
 * attributes nobody reads (event handlers, data-*, sizes, targets, titles outside links and
 * images...), `<link>` and `<input>` tags and `<select>` menus cost parse time for nothing.
 * What stays is what content-signals, content-head, html-clean, extract and markdown (turndown)
 * read. One forward pass, no backtracking: every character is looked at a bounded number of times.
 */

/** Attributes read on any element (classification, hidden checks, headline id). */
const KEPT_EVERYWHERE = new Set(["id", "class", "hidden", "aria-hidden", "role", "itemprop"]);

/** Attributes read on particular elements (links, images, meta, language, tables, lists). */
const KEPT_ON: Record<string, Set<string>> = {
  a: new Set(["href", "title", "aria-label"]),
  img: new Set(["src", "alt", "title"]),
  base: new Set(["href"]),
  meta: new Set(["name", "property", "http-equiv", "content"]),
  html: new Set(["lang", "xml:lang"]),
  td: new Set(["colspan"]),
  th: new Set(["colspan"]),
  ol: new Set(["start"]),
};

/** Void tags never read: `<link>` only points to resources, `<input>` is removed from every result. */
const DROPPED_VOID = new Set(["link", "input"]);

/** The test content-signals and html-clean apply to `style`: only a hiding style is worth keeping. */
const HIDING_STYLE = /(display\s*:\s*none|visibility\s*:\s*hidden)/i;

/** Elements whose content is text (not markup) up to their end tag: copied untouched. */
const RCDATA = new Set(["title"]);

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function keepsAttribute(tag: string, name: string, value: string): boolean {
  if (KEPT_EVERYWHERE.has(name)) return true;
  // An entity could spell "display:none" in a way only the parser decodes: keep it to be safe.
  if (name === "style") return HIDING_STYLE.test(value) || value.includes("&");
  return KEPT_ON[tag]?.has(name) === true;
}

/** Finds the next occurrence of a character, remembering a miss so no later search rescans. */
class Finder {
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

/** Case-insensitive search for `</name`, with the same memory of a miss. */
class EndTagFinder {
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

interface StartTag {
  /** Index just past the tag's `>`. */
  end: number;
  /** The tag rewritten, or undefined when nothing in it changes. */
  rewritten: string | undefined;
}

/**
 * Reads the start tag at `at` (`<` then a letter) as the HTML tokenizer does (quoted values may
 * hold `>`). Returns undefined when the tag does not end cleanly (an unclosed quote, the end of
 * the input), together with where reading stopped, so the caller copies it untouched.
 */
function readStartTag(html: string, at: number, name: string, nameEnd: number, quotes: { double: Finder; single: Finder }): StartTag | number {
  const length = html.length;
  const kept: string[] = [];
  let dropped = false;
  let i = nameEnd;
  for (;;) {
    while (i < length && (isSpace(html.charCodeAt(i)) || (html.charCodeAt(i) === 47 && html.charCodeAt(i + 1) !== 62))) i++;
    if (i >= length) return i;
    const code = html.charCodeAt(i);
    if (code === 62 || code === 47) break; // ">" or "/>"
    const attributeStart = i;
    i++;
    for (; i < length; i++) {
      const c = html.charCodeAt(i);
      if (isSpace(c) || c === 47 || c === 62 || c === 61) break;
    }
    const attributeName = html.slice(attributeStart, i).toLowerCase();
    let valueEnd = i;
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
        valueEnd = close + 1;
      } else {
        const valueStart = j;
        while (j < length && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 62) j++;
        value = html.slice(valueStart, j);
        valueEnd = j;
      }
      i = valueEnd;
    }
    if (keepsAttribute(name, attributeName, value)) kept.push(html.slice(attributeStart, valueEnd));
    else dropped = true;
  }
  const selfClosing = html.charCodeAt(i) === 47;
  const end = i + (selfClosing ? 2 : 1);
  if (!dropped) return { end, rewritten: undefined };
  const attributes = kept.length > 0 ? ` ${kept.join(" ")}` : "";
  return { end, rewritten: `${html.slice(at, nameEnd)}${attributes}${selfClosing ? "/>" : ">"}` };
}

/**
 * HTML with unread attributes, `<link>`/`<input>` tags and closed `<select>` menus removed
 * (see the module comment). Tags it cannot read cleanly are left as they are.
 */
export function trimUnreadMarkup(html: string): string {
  const length = html.length;
  const out: string[] = [];
  const quotes = { double: new Finder(html, '"'), single: new Finder(html, "'") };
  const endTags = new Map<string, EndTagFinder>();
  const endTag = (name: string): EndTagFinder => {
    let finder = endTags.get(name);
    if (!finder) endTags.set(name, (finder = new EndTagFinder(html, name)));
    return finder;
  };
  const lessThan = new Finder(html, "<");
  let copied = 0;
  let at = lessThan.next(0);
  while (at >= 0) {
    if (!isLetter(html.charCodeAt(at + 1))) {
      at = lessThan.next(at + 1);
      continue;
    }
    let nameEnd = at + 2;
    while (nameEnd < length) {
      const c = html.charCodeAt(nameEnd);
      if (isSpace(c) || c === 47 || c === 62) break;
      nameEnd++;
    }
    const name = html.slice(at + 1, nameEnd).toLowerCase();
    const tag = readStartTag(html, at, name, nameEnd, quotes);
    if (typeof tag === "number") {
      at = lessThan.next(tag);
      continue;
    }
    let end = tag.end;
    let replacement = tag.rewritten;
    if (DROPPED_VOID.has(name)) {
      replacement = "";
    } else if (name === "select") {
      // An unclosed select is left whole: a browser would not end it at the end of the input.
      const close = endTag(name).next(end);
      if (close >= 0) {
        const gt = html.indexOf(">", close);
        end = gt < 0 ? length : gt + 1;
        replacement = "";
      }
    } else if (RCDATA.has(name)) {
      const close = endTag(name).next(end);
      if (replacement !== undefined) {
        out.push(html.slice(copied, at), replacement);
        copied = end;
      }
      at = close < 0 ? -1 : lessThan.next(close + 1);
      continue;
    }
    if (replacement !== undefined) {
      out.push(html.slice(copied, at), replacement);
      copied = end;
    }
    at = lessThan.next(end);
  }
  if (copied === 0) return html;
  out.push(html.slice(copied));
  return out.join("");
}
