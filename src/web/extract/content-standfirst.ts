/**
 * @module web/extract/content-standfirst — the article's standfirst (its dek): the sentence under the headline
 * that sums the article up. News templates set it in the page's header beside the headline, outside the block
 * holding the article, so detection leaves it out as it leaves out the headline. It is known by its text, which
 * is the page's meta description, and by its place, close after the headline. Issue 44, tenth try: the human
 * truths hold the standfirst found on nearly every page that has one (scripts/bench/standfirst-truths.ts: dragnet 25
 * of 26, L3S-GN1 52 of 52, trafilatura's sets 92 of 92 and 117 of 118 with a snippet in it, big9 54 of 54, chaos-read
 * 54 of 57); Readability's output leaves it out on 6 pages of 17.
 */
import { BLOCK_TAGS } from "./content-score.ts";
import { comparableText } from "./content-stated.ts";
import { appendChild, createElement, isTag, isText, type AnyNode, type Element } from "./dom.ts";

/** Text between the headline's end and the standfirst (a byline, a date, a section label) beyond which a match is another block's. */
const MAX_GAP_CHARS = 300;

/** Shortest description matched: a short one ("News", a site's slogan) matches a label by chance. */
const MIN_DESCRIPTION_CHARS = 40;

/** Elements that may be the standfirst. */
const STANDFIRST_TAGS = new Set(["p", "h2", "h3", "h4", "h5", "h6", "div", "span", "header", "section", "aside", "strong", "em"]);

/** Most nodes a standfirst holds: a block of more (hundreds of empty wrappers) is not read, whatever its text. */
const MAX_STANDFIRST_NODES = 400;

/**
 * The node's text, or undefined once it passes `limit` characters or MAX_STANDFIRST_NODES nodes (a container of the
 * whole article is not read to its end, nor is each of a deep nest of empty boxes read whole).
 */
function textWithin(node: AnyNode, limit: number): string | undefined {
  const parts: string[] = [];
  let length = 0;
  let nodes = 0;
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    if (++nodes > MAX_STANDFIRST_NODES) return undefined;
    const next = stack.pop() as AnyNode;
    if (isText(next)) {
      length += next.data.length;
      if (length > limit) return undefined;
      parts.push(next.data);
    } else if (isTag(next)) {
      for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i] as AnyNode);
    }
  }
  return parts.join("");
}

/**
 * Whether a block's text is the description: the same words, or (a description of more than 60 characters) it
 * starts with nine tenths of them, as a block does whose description the site cut short.
 */
function isDescription(element: Element, description: string): boolean {
  const raw = textWithin(element, 4 * description.length + 200);
  if (raw === undefined) return false;
  const text = comparableText(raw);
  if (text.length < MIN_DESCRIPTION_CHARS || text.length > 1.3 * description.length + 20) return false;
  return text === description || (description.length > 60 && text.startsWith(description.slice(0, Math.floor(0.9 * description.length))));
}

/** The deepest element at `element` or below it still holding the whole description (a wrapper's text is its child's). */
function deepestMatch(element: Element, description: string): Element {
  for (const child of element.children) {
    if (isTag(child) && isDescription(child, description)) return deepestMatch(child, description);
  }
  return element;
}

/**
 * The standfirst of a page: the first element after `headline` (in document order, within MAX_GAP_CHARS of text)
 * whose text is the page's `description`; undefined when there is none, or no headline or description to go by.
 */
export function findStandfirst(body: Element, headline: Element | undefined, description: string): Element | undefined {
  const wanted = comparableText(description);
  if (!headline || wanted.length < MIN_DESCRIPTION_CHARS) return undefined;
  let gap = 0;
  let found: Element | undefined;
  // Returns true to stop the walk: the standfirst found, or the gap passed.
  const walk = (node: AnyNode): boolean => {
    if (isText(node)) {
      gap += node.data.replace(/\s+/g, " ").trim().length;
      return gap > MAX_GAP_CHARS;
    }
    if (!isTag(node)) return false;
    if (STANDFIRST_TAGS.has(node.name) && isDescription(node, wanted)) {
      found = deepestMatch(node, wanted);
      return true;
    }
    for (const child of node.children) if (walk(child)) return true;
    return false;
  };
  // What follows the headline in document order, to the body's end: its next siblings, then each ancestor's.
  for (let at: AnyNode | null = headline; at !== null && at !== body; at = at.parent) {
    for (let next = at.next; next !== null; next = next.next) if (walk(next)) return found;
  }
  return found;
}

/** Whether an element holds a block element (a standfirst of several paragraphs is kept as it is). */
function holdsBlocks(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (BLOCK_TAGS.has(child.name) || holdsBlocks(child)));
}

/**
 * The standfirst as the content's paragraph: a clone, as a `<p>` of its inline markup unless it holds blocks of its
 * own (an `h2` set as a dek is not a section heading of the article).
 */
export function standfirstParagraph(standfirst: Element): Element {
  const copy = standfirst.cloneNode(true);
  if (copy.name === "p" || holdsBlocks(copy)) return copy;
  const paragraph = createElement("p");
  for (const child of [...copy.children]) appendChild(paragraph, child);
  return paragraph;
}
