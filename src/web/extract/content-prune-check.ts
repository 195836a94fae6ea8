/**
 * @module web/extract/content-prune-check — verifies content-prune against happy-dom itself: the pruned
 * page, parsed, must be the whole page, parsed, with some elements emptied, and every emptied
 * element one the first main-content try drops unseen. Used by tests and the dev-set check
 * (scripts/bench/extraction-prune-check.ts); not on the extraction path.
 */
import type { Element, Node } from "happy-dom";
import { NEVER_CONTENT, NEVER_CONTENT_TAGS, classifyElement, isDroppedByName, marksContent } from "./content-signals.ts";
import { parseHtmlDocument } from "./content-parse.ts";
import type { PruneOptions } from "./content-prune.ts";

function describeAttributes(element: Element): string {
  return Array.from(element.attributes).map((attribute) => `${attribute.name}=${attribute.value}`).join(" ");
}

function isDroppedUnseen(element: Element, chromeNamed: boolean): boolean {
  const tag = element.nodeName;
  if (tag === "H1" || element.querySelector("h1")) return false;
  if (NEVER_CONTENT_TAGS.has(tag) || tag === "ASIDE") return true;
  const flags = classifyElement(element);
  return (flags & NEVER_CONTENT) !== 0 || (chromeNamed && isDroppedByName(flags, tag, isInContent(element)));
}

function isInContent(element: Element): boolean {
  for (let node = element.parentElement; node; node = node.parentElement) if (marksContent(node.nodeName, classifyElement(node))) return true;
  return false;
}

/**
 * Differences between the parsed whole and pruned pages other than allowed emptied elements (empty: they agree).
 * `chromeNamed` as given to pruneDroppedSubtrees; `limit` caps the differences listed (default 5).
 */
export function comparePrunedParse(whole: string, pruned: string, options: PruneOptions & { limit?: number } = {}): string[] {
  const limit = options.limit ?? 5;
  const chromeNamed = options.chromeNamed ?? true;
  const problems: string[] = [];
  const compare = (full: Node, lean: Node, path: string): void => {
    if (problems.length >= limit) return;
    if (full.nodeType !== lean.nodeType || full.nodeName !== lean.nodeName) {
      problems.push(`${path}: ${full.nodeName} became ${lean.nodeName}`);
      return;
    }
    if (full.nodeType === 3) {
      if (full.nodeValue !== lean.nodeValue) problems.push(`${path}: text ${JSON.stringify(full.nodeValue)} became ${JSON.stringify(lean.nodeValue)}`);
      return;
    }
    if (full.nodeType !== 1) return;
    const fullElement = full as unknown as Element;
    if (describeAttributes(fullElement) !== describeAttributes(lean as unknown as Element)) {
      problems.push(`${path}: attributes ${describeAttributes(fullElement)} became ${describeAttributes(lean as unknown as Element)}`);
      return;
    }
    if (lean.childNodes.length === 0 && full.childNodes.length > 0) {
      if (!isDroppedUnseen(fullElement, chromeNamed)) problems.push(`${path}: emptied, but the try reads it`);
      return;
    }
    if (full.childNodes.length !== lean.childNodes.length) {
      problems.push(`${path}: ${full.childNodes.length} children became ${lean.childNodes.length}`);
      return;
    }
    for (let i = 0; i < full.childNodes.length; i++) compare(full.childNodes[i] as Node, lean.childNodes[i] as Node, `${path}/${full.nodeName}[${i}]`);
  };
  const fullRoot = parseHtmlDocument(whole).documentElement as unknown as Node;
  const leanRoot = parseHtmlDocument(pruned).documentElement as unknown as Node;
  compare(fullRoot, leanRoot, "");
  return problems;
}
