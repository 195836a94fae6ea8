/**
 * @module web/text/canonical-text — the one text form every result uses, because web/changes diffs it
 * line by line: block elements end lines, whitespace runs collapse to one space, lines are
 * trimmed, at most one blank line in a row, no leading/trailing blank lines, well-formed UTF-16.
 */

import { isTag, isText, type AnyNode, type Element } from "domhandler";
import { makeWellFormed } from "./text-output.ts";

/** Elements that end a line. */
const BLOCK = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "div", "dl", "dt",
  "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr",
  "html", "legend", "li", "main", "menu", "nav", "ol", "option", "p", "pre", "section", "summary", "table", "tbody",
  "tfoot", "thead", "tr", "ul",
]);
/** Blocks set off by a blank line before and after (paragraph level). */
const PARAGRAPH = new Set(["blockquote", "dl", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "ol", "p", "pre", "table", "ul"]);
const SKIP = new Set(["script", "style", "noscript", "template", "head", "title", "meta", "link"]);

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

function hasBlockDescendant(node: Element): boolean {
  for (const child of node.children) {
    if (isTag(child) && (BLOCK.has(child.name) || hasBlockDescendant(child))) return true;
  }
  return false;
}

function isFirstCell(cell: Element): boolean {
  const row = cell.parent;
  if (!row) return true;
  for (const sibling of row.children) {
    if (sibling === cell) return true;
    if (isTag(sibling) && (sibling.name === "td" || sibling.name === "th")) return false;
  }
  return true;
}

/** Canonical text of a subtree (domhandler's nodes, as htmlparser2 builds them). */
export function renderCanonicalText(root: AnyNode): string {
  const parts: string[] = [];
  const walk = (node: AnyNode, inPre: boolean): void => {
    if (isText(node)) {
      const safe = node.data.replace(/[\u0000\u0001]/g, "");
      parts.push(inPre ? safe : safe.replace(/\s+/g, " "));
      return;
    }
    if (!isTag(node)) return;
    const name = node.name;
    if (SKIP.has(name)) return;
    if (name === "br") {
      parts.push("\n");
      return;
    }
    if ((name === "td" || name === "th") && !isFirstCell(node)) {
      // Data cells share a line; cells holding blocks (layout tables) start a new one.
      parts.push(hasBlockDescendant(node) ? LINE : " | ");
    }
    const block = BLOCK.has(name);
    const paragraph = PARAGRAPH.has(name);
    if (block) parts.push(paragraph ? PARAGRAPH_BREAK : LINE);
    const pre = inPre || name === "pre" || name === "textarea";
    for (const child of node.children) walk(child, pre);
    if (block) parts.push(paragraph ? PARAGRAPH_BREAK : LINE);
  };
  walk(root, false);
  const joined = parts.join("").replace(BREAK_RUN, (run) => (run.includes(PARAGRAPH_BREAK) ? "\n\n" : "\n"));
  return normalizeText(joined);
}

/** Text of an inline element (link, heading) on one line. */
export function renderInlineText(root: AnyNode): string {
  return renderCanonicalText(root).replace(/\s*\n+\s*/g, " ");
}
