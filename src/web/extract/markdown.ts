/**
 * @module web/extract/markdown — Markdown of the same content the text comes from (turndown), with GFM
 * tables. turndown-plugin-gfm 1.0.2 keeps header-less tables as raw HTML and does not escape
 * pipes in cells, so the table rules are ours; strikethrough, task lists and highlighted code
 * come from the plugin.
 */
import TurndownService from "turndown";
import { highlightedCodeBlock, strikethrough, taskListItems } from "turndown-plugin-gfm";
import { makeWellFormed } from "../text/text-output.ts";
import { attributeOf, closestNamed, elementChildrenOf, parentElementOf, removeNode, selectAllIn, selectFirstIn, type Element } from "./dom.ts";
import { viewOf, type MarkdownNode } from "./markdown-node.ts";
import { dropBeyondMarkdownPrefix } from "./markdown-prefix.ts";

type TurndownNode = TurndownService.Node;

const CELL_TAGS = new Set(["TD", "TH"]);
const BLOCK_IN_CELL = "p,div,ul,ol,table,pre,blockquote,h1,h2,h3,h4,h5,h6,section,article";

function elementOf(node: TurndownNode): Element | undefined {
  return (node as unknown as MarkdownNode).element;
}

/** The table's rows, not those of tables nested in its cells. */
function rowsOf(table: Element): Element[] {
  return selectAllIn(table, "tr").filter((row) => enclosingTable(row) === table);
}

function cellsOf(row: Element): Element[] {
  return elementChildrenOf(row).filter((cell) => cell.name === "td" || cell.name === "th");
}

/** Tables used for page layout (blocks or nested tables in cells) become plain blocks, not Markdown tables. */
function isLayoutTable(table: Element): boolean {
  return selectFirstIn(table, BLOCK_IN_CELL) !== null;
}

function enclosingTable(element: Element): Element | null {
  const parent = parentElementOf(element);
  return parent ? closestNamed(parent, "table") : null;
}

function isDataTableNode(node: TurndownNode): boolean {
  const element = elementOf(node);
  if (!element) return false;
  const table = element.name === "table" ? element : enclosingTable(element);
  return table !== null && !isLayoutTable(table);
}

function spanOf(cell: Element): number {
  return Math.max(1, Number(attributeOf(cell, "colspan") ?? "1") || 1);
}

function columnCount(table: Element): number {
  let max = 0;
  for (const row of rowsOf(table)) {
    let cells = 0;
    for (const cell of cellsOf(row)) cells += spanOf(cell);
    max = Math.max(max, cells);
  }
  return max;
}

function addTableRules(service: TurndownService): void {
  service.addRule("gfmTableCell", {
    filter: (node) => CELL_TAGS.has(node.nodeName) && isDataTableNode(node),
    replacement: (content, node) => {
      const text = content.replace(/\s*\n+\s*/g, " ").replace(/\|/g, "\\|").trim();
      const cell = elementOf(node);
      return ` ${text} |${" |".repeat((cell ? spanOf(cell) : 1) - 1)}`;
    },
  });
  service.addRule("gfmTableRow", {
    filter: (node) => node.nodeName === "TR" && isDataTableNode(node),
    replacement: (content, node) => {
      const row = elementOf(node);
      const table = row ? enclosingTable(row) : null;
      if (!row || !table) return content;
      const columns = columnCount(table);
      let cells = 0;
      for (const cell of cellsOf(row)) cells += spanOf(cell);
      const line = `|${content}${" |".repeat(Math.max(0, columns - cells))}`;
      // GFM needs a header row: the table's first row serves as one, whatever its cell tags.
      const isFirst = rowsOf(table)[0] === row;
      return isFirst ? `\n${line}\n|${" --- |".repeat(columns)}` : `\n${line}`;
    },
  });
  service.addRule("gfmTable", {
    filter: (node) => node.nodeName === "TABLE" && isDataTableNode(node),
    replacement: (content) => `\n\n${content.replace(/\n+/g, "\n").trim()}\n\n`,
  });
  service.addRule("gfmTableSection", {
    filter: ["thead", "tbody", "tfoot"],
    replacement: (content) => content,
  });
  service.addRule("layoutTable", {
    filter: (node) => ["TABLE", "TR", "TD", "TH", "CAPTION"].includes(node.nodeName) && !isDataTableNode(node),
    replacement: (content) => `\n\n${content}\n\n`,
  });
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
    hr: "---",
  });
  service.use([highlightedCodeBlock, strikethrough, taskListItems]);
  addTableRules(service);
  service.remove(["script", "style", "noscript", "template", "title"]);
  return service;
}

let shared: TurndownService | undefined;

/** Counted characters kept beyond `keepChars`: turndown's junctions at the cut (trailing whitespace, newlines) change only the last few. */
const PREFIX_MARGIN_CHARS = 1000;

/**
 * Markdown of a subtree nobody reads afterwards (its URLs should already be absolute): turndown collapses
 * whitespace on a copy of its input, which for a 600 KB page doubled the thread's peak memory; here it works
 * on the subtree itself, taken out of its tree first as a copy would be (its rules read a node's parents), and
 * left there with its whitespace collapsed. With `keepChars`, only the Markdown's first `keepChars` code points are
 * sure to be the whole content's (the caller cuts it there): the content beyond them is not rendered
 * (markdown-prefix.ts), and the Markdown is longer than `keepChars` whenever the whole content's is.
 */
export function renderMarkdownConsuming(root: Element, keepChars?: number): string {
  if (root.parent) removeNode(root);
  if (keepChars !== undefined) dropBeyondMarkdownPrefix(root, keepChars + PREFIX_MARGIN_CHARS);
  shared ??= createService();
  const markdown = shared.turndown(viewOf(root) as unknown as TurndownNode);
  return makeWellFormed(markdown).replace(/[ \t]+$/gm, "").replace(/\n{3,}/g, "\n\n").trim();
}
