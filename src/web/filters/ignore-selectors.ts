/**
 * @module web/filters/ignore-selectors — ignore_selectors of web/changes: the page's elements that match
 * them are removed from the HTML before extraction, so neither side of a comparison ever holds their text.
 *
 * The page is parsed as the extractor parses it: the same source (scripts, styles and comments cut, an unclosed
 * title closed; with a `selector`, only the title closed) in the shape a browser gives it (content-parse.ts: one
 * <html>, <head> and <body>, tables with their row groups), so `body > div.ad` or `table > tbody > tr` select
 * as in a browser; css-select matches. When something matched, the tree is serialized again (dom-serializer)
 * and the extractor reads that; a page where nothing matched is passed on byte for byte.
 *
 * Matching is counted in steps (each element tested, each move to a parent, sibling or child list), at most
 * MAX_SELECTOR_STEPS a page: css-select tries every chain of ancestors for descendant combinators, so
 * `nope div div div div div div` on a page nested 500 deep would take longer than anyone waits (C(500, 6) chains
 * per element). The usual selectors take a few steps per element (scripts/bench/change-filters.ts).
 */
import { compile, type Options } from "css-select";
import { render } from "dom-serializer";
import { type AnyNode, type ChildNode, type Element, isTag, type ParentNode } from "domhandler";
import * as DomUtils from "domutils";
import { ApiError } from "../../errors.ts";
import { closeUnclosedTitle, cutUnreadMarkup, parsePage } from "../extract/content-parse.ts";
import { renderCanonicalText } from "../text/canonical-text.ts";

export const MAX_IGNORE_SELECTORS = 20;
export const MAX_SELECTOR_CHARS = 300;
/** Steps of selector matching on one page, all ignore_selectors together (about 0.1-0.3 s at most). */
export const MAX_SELECTOR_STEPS = 5_000_000;

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

class StepsExceeded extends Error {}

/** css-select's default adapter (domutils), counting the steps of matching against `budget`. */
type Adapter = NonNullable<Options<AnyNode, Element>["adapter"]>;

function countingAdapter(budget: { steps: number }): Adapter {
  const step = () => {
    if (++budget.steps > MAX_SELECTOR_STEPS) throw new StepsExceeded();
  };
  return {
    ...DomUtils,
    isTag,
    getParent: (node: AnyNode) => (step(), DomUtils.getParent(node)),
    getChildren: (node: AnyNode) => (step(), DomUtils.getChildren(node)),
    getSiblings: (node: AnyNode) => (step(), DomUtils.getSiblings(node)),
    prevElementSibling: (node: AnyNode) => (step(), DomUtils.prevElementSibling(node)),
  };
}

/**
 * Elements inside `root` that match any selector, outermost only, in document order; a walk with a stack (the
 * tree is at most 512 deep). Throws ApiError CONTENT_TOO_COMPLEX past MAX_SELECTOR_STEPS.
 */
function matchingElements(root: ParentNode, selectors: readonly string[]): Element[] {
  const budget = { steps: 0 };
  const adapter = countingAdapter(budget);
  const tests = selectors.map((selector) => compile<AnyNode, Element>(selector, { adapter }));
  const found: Element[] = [];
  const stack: ChildNode[] = [...root.children].reverse();
  let current = 0;
  try {
    while (stack.length > 0) {
      const node = stack.pop() as ChildNode;
      if (!isTag(node)) continue;
      budget.steps++;
      let matched = false;
      for (current = 0; current < tests.length && !matched; current++) matched = (tests[current] as (element: Element) => boolean)(node);
      if (matched) {
        // Its whole subtree goes with it: nothing inside is tested or counted again.
        found.push(node);
        continue;
      }
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as ChildNode);
    }
  } catch (error) {
    if (!(error instanceof StepsExceeded)) throw error;
    throw new ApiError("CONTENT_TOO_COMPLEX", {
      message:
        `Matching ignore_selectors took more than ${MAX_SELECTOR_STEPS} steps on this page (last tried: ignore_selectors[${current}] ` +
        `${JSON.stringify(selectors[current])}); use selectors with fewer descendant combinators.`,
    });
  }
  return found;
}

/**
 * The HTML without the elements the selectors match (checked by checkIgnoreSelectors), and what was removed.
 * `scoped`: the extraction will take a `selector`, and so reads the page with its scripts and comments.
 */
export function removeIgnoredElements(html: string, selectors: readonly string[], scoped = false): { html: string; ignored: IgnoredElements } {
  const page = parsePage(scoped ? closeUnclosedTitle(html) : cutUnreadMarkup(html));
  const removed = matchingElements(page.document, selectors);
  if (removed.length === 0) return { html, ignored: { elements: 0, lines: 0 } };
  let lines = 0;
  for (const element of removed) {
    lines += countLines(renderCanonicalText(element));
    DomUtils.removeElement(element);
  }
  return { html: render(page.document, { encodeEntities: "utf8" }), ignored: { elements: removed.length, lines } };
}
