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

const INLINE_SPACE = /[^\S\n]+/g;
/** Break requests from block boundaries: adjacent ones merge, so nested blocks do not stack blank lines. */
const LINE = "\u0000";
const PARAGRAPH_BREAK = "\u0001";
const BREAK_RUN = /\s*[\u0000\u0001][\s\u0000\u0001]*/g;

/** Canonical form of plain text (any line endings, any whitespace). */
export function normalizeText(input: string): string {
  const lines = makeWellFormed(input).replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let blank = true; // suppresses leading blank lines
  for (const line of lines) {
    const clean = line.replace(INLINE_SPACE, " ").trim();
    if (clean === "") {
      if (!blank) out.push("");
      blank = true;
    } else {
      out.push(clean);
      blank = false;
    }
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.join("\n");
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
