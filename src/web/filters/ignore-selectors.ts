/**
 * @module web/filters/ignore-selectors — ignore_selectors of web/changes: the page's elements that match
 * them are removed from the HTML before extraction, so neither side of a comparison ever holds their text.
 *
 * The page is parsed as the extractor parses it, in the shape a browser gives it (content-parse.ts: one
 * <html>, <head> and <body>, tables with their row groups), so `body > div.ad` or `table > tbody > tr` select
 * as in a browser; css-select matches. When something matched, the tree is serialized again (dom-serializer)
 * and the extractor reads that; a page where nothing matched is passed on byte for byte.
 */
import { compile } from "css-select";
import { render } from "dom-serializer";
import { type AnyNode, type ChildNode, type Element, isTag, type ParentNode } from "domhandler";
import { removeElement } from "domutils";
import { ApiError } from "../../errors.ts";
import { parsePage } from "../extract/content-parse.ts";
import { renderCanonicalText } from "../text/canonical-text.ts";

export const MAX_IGNORE_SELECTORS = 20;
export const MAX_SELECTOR_CHARS = 300;

export interface IgnoredElements {
  /** Elements removed (one inside another removed element is not counted again). */
  elements: number;
  /** Non-blank lines of canonical text those elements held, wherever they stood on the page. */
  lines: number;
}

/** Throws ApiError SELECTOR_INVALID naming the first selector css-select cannot compile, or the limits broken. */
export function checkIgnoreSelectors(selectors: readonly string[] | undefined): void {
  if (!selectors) return;
  if (selectors.length > MAX_IGNORE_SELECTORS) {
    throw new ApiError("SELECTOR_INVALID", { message: `ignore_selectors has ${selectors.length} selectors; at most ${MAX_IGNORE_SELECTORS}.` });
  }
  selectors.forEach((selector, index) => {
    const where = `ignore_selectors[${index}] ${JSON.stringify(selector.slice(0, MAX_SELECTOR_CHARS))}`;
    if (selector.trim() === "" || selector.length > MAX_SELECTOR_CHARS) {
      throw new ApiError("SELECTOR_INVALID", { message: `${where}: a selector has 1 to ${MAX_SELECTOR_CHARS} characters.` });
    }
    try {
      compile(selector);
    } catch (cause) {
      throw new ApiError("SELECTOR_INVALID", { message: `${where}: not a valid CSS selector (${(cause as Error).message}).`, cause });
    }
  });
}

function countLines(text: string): number {
  let count = 0;
  for (const line of text.split("\n")) if (line.trim() !== "") count++;
  return count;
}

/** Elements inside `root` that pass any test, in document order; a walk with a stack (the tree is at most 512 deep). */
function matchingElements(root: ParentNode, tests: readonly ((element: Element) => boolean)[]): Element[] {
  const found: Element[] = [];
  const stack: ChildNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as ChildNode;
    if (!isTag(node)) continue;
    if (tests.some((test) => test(node))) {
      // Its whole subtree goes with it: nothing inside is tested or counted again.
      found.push(node);
      continue;
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as ChildNode);
  }
  return found;
}

/** The HTML without the elements the selectors match (checked by checkIgnoreSelectors), and what was removed. */
export function removeIgnoredElements(html: string, selectors: readonly string[]): { html: string; ignored: IgnoredElements } {
  const tests = selectors.map((selector) => compile<AnyNode, Element>(selector));
  const page = parsePage(html);
  const removed = matchingElements(page.document, tests);
  if (removed.length === 0) return { html, ignored: { elements: 0, lines: 0 } };
  let lines = 0;
  for (const element of removed) {
    lines += countLines(renderCanonicalText(element));
    removeElement(element);
  }
  return { html: render(page.document, { encodeEntities: "utf8" }), ignored: { elements: removed.length, lines } };
}
