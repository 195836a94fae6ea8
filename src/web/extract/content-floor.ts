/**
 * @module web/extract/content-floor — how much text the page offers the first main-content try, which
 * the relative floor (extract.ts: found content must hold a share of it) is taken of: the body's text
 * without the subtrees that try drops unseen (never content by tag or attributes, asides, chrome named
 * by class or id), unless they hold the page's h1 or, for named chrome, something named as content.
 * Whitespace-only runs between blocks, which say nothing of a page's size, are not counted.
 */
import { CONTENT_NAMED, NEVER_CONTENT, NEVER_CONTENT_TAGS, classifyElement, isDroppedByName, marksContent } from "./content-signals.ts";
import { isTag, isText, selectAllIn, selectFirstIn, type Element } from "./dom.ts";

/** Characters of the body's text the first try reads (see the module comment). */
export function firstTryTextLength(body: Element): number {
  return keptLength(body, false);
}

function keptLength(element: Element, inContent: boolean): number {
  let length = 0;
  for (const child of element.children) {
    if (isText(child)) {
      length += countedLength(child.data);
      continue;
    }
    if (!isTag(child)) continue;
    const tag = child.name;
    if (tag === "h1") {
      length += wholeLength(child);
      continue;
    }
    const flags = classifyElement(child);
    const never = NEVER_CONTENT_TAGS.has(tag) || tag === "aside" || (flags & NEVER_CONTENT) !== 0;
    const chrome = !never && isDroppedByName(flags, tag, inContent);
    if (never || chrome) {
      // Kept whole when it holds the headline (or, named chrome, a block named as content).
      const kept = selectFirstIn(child, "h1") !== null || (chrome && holdsNamedContent(child));
      if (kept) length += wholeLength(child);
      continue;
    }
    length += keptLength(child, inContent || marksContent(tag, flags));
  }
  return length;
}

function holdsNamedContent(element: Element): boolean {
  return selectAllIn(element, "[class],[id],[itemprop]").some((inside) => (classifyElement(inside) & CONTENT_NAMED) !== 0);
}

function wholeLength(element: Element): number {
  let length = 0;
  for (const child of element.children) {
    if (isText(child)) length += countedLength(child.data);
    else if (isTag(child)) length += wholeLength(child);
  }
  return length;
}

/** A text node's length, or 0 when it is only whitespace. */
function countedLength(data: string): number {
  for (let i = 0; i < data.length; i++) {
    const code = data.charCodeAt(i);
    if (code > 0x20 || (code !== 0x20 && code !== 0x0a && code !== 0x09 && code !== 0x0d && code !== 0x0c)) return data.length;
  }
  return 0;
}
