/**
 * @module web/text/canonical-text — the one text form every result uses, because web/changes diffs it
 * line by line: block elements end lines, whitespace runs collapse to one space, lines are
 * trimmed, at most one blank line in a row, no leading/trailing blank lines, well-formed UTF-16.
 */

import { makeWellFormed } from "./text-output.ts";

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

/** Elements that end a line. */
const BLOCK = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "CAPTION", "CENTER", "DD", "DETAILS", "DIALOG", "DIV", "DL", "DT",
  "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HGROUP", "HR",
  "HTML", "LEGEND", "LI", "MAIN", "MENU", "NAV", "OL", "OPTION", "P", "PRE", "SECTION", "SUMMARY", "TABLE", "TBODY",
  "TFOOT", "THEAD", "TR", "UL",
]);
/** Blocks set off by a blank line before and after (paragraph level). */
const PARAGRAPH = new Set(["BLOCKQUOTE", "DL", "FIGURE", "H1", "H2", "H3", "H4", "H5", "H6", "HR", "OL", "P", "PRE", "TABLE", "UL"]);
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK"]);

/** Minimal node shape (happy-dom and any DOM satisfy it) so this module stays DOM-library neutral. */
export interface TextNodeLike {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<TextNodeLike>;
  parentNode: TextNodeLike | null;
}

/** How a walk lists a node's children: the DOM's `childNodes` unless the caller has a cheaper list. */
export type ChildList = (node: TextNodeLike) => ArrayLike<TextNodeLike>;

const domChildNodes: ChildList = (node) => node.childNodes;

/** Break requests from block boundaries: adjacent ones merge, so nested blocks do not stack blank lines. */
const LINE = "\u0000";
const PARAGRAPH_BREAK = "\u0001";
const BREAK_RUN = /\s*[\u0000\u0001][\s\u0000\u0001]*/g;

/**
 * Canonical form of plain text (any line endings, any whitespace): whitespace runs within a line become one space,
 * lines are trimmed, blank lines collapse to one, none leads or trails. One scan of the text, copying what it keeps
 * in slices: a regex replace per line (or three over the whole text) cost three times as much on PDF pages.
 */
export function normalizeText(input: string): string {
  let text = makeWellFormed(input);
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  let out = "";
  let blank = false; // a blank line since the last line kept (none is kept before the first)
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    let from = start;
    let to = end;
    while (from < to && isInlineSpace(text.charCodeAt(from))) from++;
    while (to > from && isInlineSpace(text.charCodeAt(to - 1))) to--;
    if (from < to) {
      if (out !== "") out += blank ? "\n\n" : "\n";
      out += collapseSpaces(text, from, to);
      blank = false;
    } else if (out !== "") blank = true;
    start = end + 1;
  }
  return out;
}

/** JavaScript's whitespace (`\s`) other than the line feed. */
function isInlineSpace(code: number): boolean {
  if (code === 0x20) return true;
  if (code < 0xa0) return code >= 0x09 && code <= 0x0d && code !== 0x0a;
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 ||
    code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** `text` from `from` to `to` (which start and end with other characters) with each whitespace run made one space. */
function collapseSpaces(text: string, from: number, to: number): string {
  let out = "";
  let kept = from; // start of the stretch not yet copied
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x20 && code < 0xa0) continue;
    if (code === 0x20 ? !isInlineSpace(text.charCodeAt(i + 1)) : !isInlineSpace(code)) continue;
    let end = i + 1;
    while (end < to && isInlineSpace(text.charCodeAt(end))) end++;
    out += `${text.slice(kept, i)} `;
    kept = end;
    i = end - 1;
  }
  return kept === from ? text.slice(from, to) : out + text.slice(kept, to);
}

function hasBlockDescendant(node: TextNodeLike, childrenOf: ChildList): boolean {
  const children = childrenOf(node);
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (child?.nodeType === ELEMENT_NODE && (BLOCK.has(child.nodeName) || hasBlockDescendant(child, childrenOf))) return true;
  }
  return false;
}

function isFirstCell(cell: TextNodeLike, childrenOf: ChildList): boolean {
  const row = cell.parentNode;
  if (!row) return true;
  const siblings = childrenOf(row);
  for (let i = 0; i < siblings.length; i++) {
    const sibling = siblings[i];
    if (sibling === cell) return true;
    if (sibling?.nodeType === ELEMENT_NODE && (sibling.nodeName === "TD" || sibling.nodeName === "TH")) return false;
  }
  return true;
}

/** Canonical text of a DOM subtree. */
export function renderCanonicalText(root: TextNodeLike, childrenOf: ChildList = domChildNodes): string {
  const parts: string[] = [];
  const walk = (node: TextNodeLike, inPre: boolean): void => {
    if (node.nodeType === TEXT_NODE) {
      const value = node.nodeValue ?? "";
      const safe = value.replace(/[\u0000\u0001]/g, "");
      parts.push(inPre ? safe : safe.replace(/\s+/g, " "));
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const name = node.nodeName;
    if (SKIP.has(name)) return;
    if (name === "BR") {
      parts.push("\n");
      return;
    }
    if ((name === "TD" || name === "TH") && !isFirstCell(node, childrenOf)) {
      // Data cells share a line; cells holding blocks (layout tables) start a new one.
      parts.push(hasBlockDescendant(node, childrenOf) ? LINE : " | ");
    }
    const block = BLOCK.has(name);
    const paragraph = PARAGRAPH.has(name);
    if (block) parts.push(paragraph ? PARAGRAPH_BREAK : LINE);
    const pre = inPre || name === "PRE" || name === "TEXTAREA";
    const children = childrenOf(node);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child) walk(child, pre);
    }
    if (block) parts.push(paragraph ? PARAGRAPH_BREAK : LINE);
  };
  walk(root, false);
  const joined = parts.join("").replace(BREAK_RUN, (run) => (run.includes(PARAGRAPH_BREAK) ? "\n\n" : "\n"));
  return normalizeText(joined);
}

/** Text of an inline element (link, heading) on one line. */
export function renderInlineText(root: TextNodeLike, childrenOf: ChildList = domChildNodes): string {
  return renderCanonicalText(root, childrenOf).replace(/\s*\n+\s*/g, " ");
}
