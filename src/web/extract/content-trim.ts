/**
 * @module web/extract/content-trim — drops markup that no extraction result reads, before parsing:
 * happy-dom makes a full node (with its own maps and caches) of every attribute and element, so
 * attributes nobody reads (event handlers, data-*, sizes, targets, titles outside links and
 * images...), `<link>` and `<input>` tags and `<select>` menus cost parse time for nothing.
 * What stays is what content-signals, content-head, html-clean, extract and markdown (turndown)
 * read. One forward pass, no backtracking: every character is looked at a bounded number of times.
 */
import { EndTagFinder, Finder, createQuoteFinders, isLetter, readStartTag, type StartTag } from "./content-tokens.ts";

/** Attributes read on any element (classification, hidden checks, headline id). */
const KEPT_EVERYWHERE = new Set(["id", "class", "hidden", "aria-hidden", "role", "itemprop"]);

/** Attributes read on particular elements (links, images, meta, language, tables, lists). */
const KEPT_ON: Record<string, Set<string>> = {
  a: new Set(["href", "title", "aria-label", "name"]),
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

function keepsAttribute(tag: string, name: string, value: string): boolean {
  if (KEPT_EVERYWHERE.has(name)) return true;
  // An entity could spell "display:none" in a way only the parser decodes: keep it to be safe.
  if (name === "style") return HIDING_STYLE.test(value) || value.includes("&");
  return KEPT_ON[tag]?.has(name) === true;
}

/** The tag written with only the attributes extraction reads, or undefined when it has no others. */
function rewriteStartTag(html: string, at: number, tag: StartTag): string | undefined {
  const kept = tag.attributes.filter((attribute) => keepsAttribute(tag.name, attribute.name, attribute.value));
  if (kept.length === tag.attributes.length) return undefined;
  const attributes = kept.map((attribute) => ` ${html.slice(attribute.start, attribute.end)}`).join("");
  return `${html.slice(at, tag.nameEnd)}${attributes}${tag.selfClosing ? "/>" : ">"}`;
}

/**
 * HTML with unread attributes, `<link>`/`<input>` tags and closed `<select>` menus removed
 * (see the module comment). Tags it cannot read cleanly are left as they are.
 */
export function trimUnreadMarkup(html: string): string {
  const length = html.length;
  const out: string[] = [];
  const quotes = createQuoteFinders(html);
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
    const tag = readStartTag(html, at, quotes);
    if (typeof tag === "number") {
      at = lessThan.next(tag);
      continue;
    }
    const name = tag.name;
    let end = tag.end;
    let replacement = rewriteStartTag(html, at, tag);
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
      if (close < 0) {
        // Never closed: damage (an ad script cut into the head of older crawls). To the tokenizer the rest of
        // the page would be the title's text and the body empty; the title ends where the next tag starts.
        const next = lessThan.next(end);
        if (next < 0) break;
        out.push(html.slice(copied, at), replacement ?? html.slice(at, end), html.slice(end, next), `</${name}>`);
        copied = next;
        at = next;
        continue;
      }
      if (replacement !== undefined) {
        out.push(html.slice(copied, at), replacement);
        copied = end;
      }
      at = lessThan.next(close + 1);
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
