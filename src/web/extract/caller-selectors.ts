/**
 * @module web/extract/caller-selectors — the CSS selectors a caller sends (web/read's and web/changes' `selector`,
 * web/changes' ignore_selectors) matched on a page with a budget of steps.
 *
 * css-select tries every chain of ancestors for descendant combinators, so `nope div div div div div div` on a page
 * nested 500 deep would take longer than anyone waits (C(500, 6) chains per element); `:has()` walks each element's
 * subtree. Matching is counted in steps (each element tested, each move to a parent, sibling or child list, `:has()`
 * walking a subtree included), at most MAX_SELECTOR_STEPS a page for all the caller's selectors together; past it,
 * ApiError CONTENT_TOO_COMPLEX names the selector being tried. The usual selectors take a few steps per element
 * (scripts/bench/change-filters.ts). Extraction's own selectors (dom.ts) are fixed and cheap, and run unbudgeted.
 */
import { compile, type Options } from "css-select";
import * as DomUtils from "domutils";
import { ApiError } from "../../errors.ts";
import { isTag, type AnyNode, type ChildNode, type Element, type ParentNode } from "./dom.ts";

/** Steps of selector matching on one page, all of a caller's selectors together (about 0.1-0.3 s at most). */
export const MAX_SELECTOR_STEPS = 5_000_000;

class StepsExceeded extends Error {}

type Adapter = NonNullable<Options<AnyNode, Element>["adapter"]>;
type Test = (element: Element) => boolean;

/** The steps one page's caller selectors have taken; one budget per extraction. */
export class SelectorBudget {
  private steps = 0;
  /** css-select's default adapter (domutils), each call counted against the budget. */
  readonly adapter: Adapter;

  constructor(private readonly limit = MAX_SELECTOR_STEPS) {
    const step = () => this.step();
    this.adapter = {
      ...DomUtils,
      isTag,
      getParent: (node: AnyNode) => (step(), DomUtils.getParent(node)),
      getChildren: (node: AnyNode) => (step(), DomUtils.getChildren(node)),
      getSiblings: (node: AnyNode) => (step(), DomUtils.getSiblings(node)),
      prevElementSibling: (node: AnyNode) => (step(), DomUtils.prevElementSibling(node)),
    };
  }

  step(): void {
    if (++this.steps > this.limit) throw new StepsExceeded();
  }
}

/** A caller's selector and how the error names it (`selector "main"`, `ignore_selectors[2] ".ad"`). */
export interface CallerSelector {
  selector: string;
  name: string;
}

/** Compiles a caller's selector; throws ApiError SELECTOR_INVALID naming it. */
function compileCounted(selector: CallerSelector, budget: SelectorBudget): Test {
  try {
    return compile<AnyNode, Element>(selector.selector, { adapter: budget.adapter });
  } catch (cause) {
    throw new ApiError("SELECTOR_INVALID", { message: `${selector.name}: not a valid CSS selector (${(cause as Error).message}).`, cause });
  }
}

function tooComplex(selector: CallerSelector): ApiError {
  return new ApiError("CONTENT_TOO_COMPLEX", {
    message:
      `Matching the CSS selectors took more than ${MAX_SELECTOR_STEPS} steps on this page (last tried: ${selector.name}); ` +
      "use selectors with fewer descendant combinators.",
  });
}

/**
 * Walks the elements inside `root` (not `root` itself) in document order with a stack (the tree is at most 512 deep),
 * testing each against `tests` in turn until one matches. `visit` is told the element and the index of the test that
 * matched (-1: none) and answers whether to walk into the element. Throws ApiError CONTENT_TOO_COMPLEX past the budget.
 */
function walk(root: ParentNode, selectors: readonly CallerSelector[], budget: SelectorBudget, visit: (element: Element, matched: number) => "stop" | "skip" | "enter"): void {
  const tests = selectors.map((selector) => compileCounted(selector, budget));
  const stack: ChildNode[] = [];
  for (let i = root.children.length - 1; i >= 0; i--) stack.push(root.children[i] as ChildNode);
  let current = 0;
  try {
    while (stack.length > 0) {
      const node = stack.pop() as ChildNode;
      if (!isTag(node)) continue;
      budget.step();
      let matched = -1;
      for (current = 0; current < tests.length && matched < 0; current++) if ((tests[current] as Test)(node)) matched = current;
      const next = visit(node, matched);
      if (next === "stop") return;
      if (next === "skip") continue;
      const children = node.children;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as ChildNode);
    }
  } catch (error) {
    if (error instanceof StepsExceeded) throw tooComplex(selectors[Math.min(current, selectors.length - 1)] as CallerSelector);
    throw error;
  }
}

/**
 * The first element inside `root` that matches the selector, or null; a template's content is no part of the tree,
 * as in a DOM (dom.ts's selectFirstIn, budgeted). Throws ApiError SELECTOR_INVALID or CONTENT_TOO_COMPLEX.
 */
export function firstMatchIn(root: ParentNode, selector: CallerSelector, budget: SelectorBudget): Element | null {
  let found: Element | null = null;
  walk(root, [selector], budget, (element, matched) => {
    if (matched >= 0) {
      found = element;
      return "stop";
    }
    return element.name === "template" ? "skip" : "enter";
  });
  return found;
}

/**
 * The elements inside `root` that match any of the selectors, outermost only (nothing inside a match is tested), in
 * document order. Throws ApiError SELECTOR_INVALID or CONTENT_TOO_COMPLEX.
 */
export function outermostMatchesIn(root: ParentNode, selectors: readonly CallerSelector[], budget: SelectorBudget): Element[] {
  const found: Element[] = [];
  walk(root, selectors, budget, (element, matched) => {
    if (matched < 0) return "enter";
    found.push(element);
    return "skip";
  });
  return found;
}
