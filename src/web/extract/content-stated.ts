/**
 * @module web/extract/content-stated — the block of a page that holds the parts its structured data states as its
 * main content (content-structured's readStatedParts: a recipe's ingredients and method, a forum thread's first
 * post). On a recipe page the counting rules can prefer a small block named as content (a rating widget, a photo
 * gallery) to the recipe, whose ingredients are short lines; the page says which text is the recipe.
 */
import { elementChildrenOf, spacedTextOf, type Element } from "./dom.ts";

/** Fewest stated parts for them to decide anything (one ingredient line proves nothing). */
export const MIN_STATED_PARTS = 3;
/** Content holding less than this share of the stated parts misses the page's main content. */
export const MIN_SHARE_HELD = 0.5;
/** A child block stands for its parent while it holds this share of what the parent holds. */
const CHILD_SHARE_OF_PARENT = 0.9;
/**
 * Most parts compared and most levels descended: each level reads the text under it once for every part, so a
 * hostile page (thousands of stated parts, nesting thousands deep) costs at most this many passes over its text.
 * A recipe states tens of lines, a first post tens more.
 */
export const MAX_STATED_PARTS = 100;
const MAX_LEVELS = 40;

/** Lower case, letters and digits only, one space between words: tables and markup split a line as they like. */
export function comparableText(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** comparableText with a space at each end, so that a needle matches whole words only. */
function normalize(text: string): string {
  return ` ${comparableText(text)} `;
}

/** The share of `parts` found in `text` (whole words, ignoring case, punctuation and spacing). */
export function shareHeld(text: string, parts: readonly string[]): number {
  if (parts.length === 0) return 0;
  const haystack = normalize(text);
  let held = 0;
  for (const part of parts) {
    const needle = normalize(part);
    if (needle.trim() !== "" && haystack.includes(needle)) held++;
  }
  return held / parts.length;
}

/**
 * The smallest block under `body` that holds (nearly) as many of the stated `parts` as the body does, at least
 * MIN_SHARE_HELD of them: descends from the body into the child holding the most while it keeps
 * CHILD_SHARE_OF_PARENT of its parent's. Undefined when the page's text holds too few of them.
 */
export function statedPartsBlock(body: Element, allParts: readonly string[]): Element | undefined {
  const parts = allParts.slice(0, MAX_STATED_PARTS);
  let node = body;
  let share = shareHeld(spacedTextOf(body), parts);
  if (share < MIN_SHARE_HELD) return undefined;
  for (let level = 0; level < MAX_LEVELS; level++) {
    let best: Element | undefined;
    let bestShare = 0;
    for (const child of elementChildrenOf(node)) {
      const childShare = shareHeld(spacedTextOf(child), parts);
      if (childShare > bestShare) [best, bestShare] = [child, childShare];
    }
    if (!best || bestShare < CHILD_SHARE_OF_PARENT * share) break;
    [node, share] = [best, bestShare];
  }
  return node === body ? undefined : node;
}
