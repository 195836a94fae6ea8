/**
 * @module web/extract/markdown — Markdown of the same content the text comes from (turndown), with GFM
 * tables. turndown-plugin-gfm 1.0.2 keeps header-less tables as raw HTML and does not escape
 * pipes in cells, so the table rules are ours; strikethrough, task lists and highlighted code
 * come from the plugin.
 */
import type { Element } from "happy-dom";
import TurndownService from "turndown";
import { highlightedCodeBlock, strikethrough, taskListItems } from "turndown-plugin-gfm";
import { makeWellFormed } from "../text/text-output.ts";

type TurndownNode = TurndownService.Node;

const CELL_TAGS = new Set(["TD", "TH"]);
const BLOCK_IN_CELL = "p,div,ul,ol,table,pre,blockquote,h1,h2,h3,h4,h5,h6,section,article";

function rowsOf(table: HTMLTableElement): HTMLTableRowElement[] {
  return Array.from(table.rows).filter((row) => row.closest("table") === table);
}

/** Tables used for page layout (blocks or nested tables in cells) become plain blocks, not Markdown tables. */
function isLayoutTable(table: HTMLTableElement): boolean {
  return table.querySelector(BLOCK_IN_CELL) !== null;
}

function enclosingTable(node: TurndownNode): HTMLTableElement | null {
  return (node as unknown as HTMLElement).closest("table");
}

function isDataTableNode(node: TurndownNode): boolean {
  const table = node.nodeName === "TABLE" ? (node as unknown as HTMLTableElement) : enclosingTable(node);
  return table !== null && !isLayoutTable(table);
}

function columnCount(table: HTMLTableElement): number {
  let max = 0;
  for (const row of rowsOf(table)) {
    let cells = 0;
    for (const cell of Array.from(row.cells)) cells += Math.max(1, Number(cell.getAttribute("colspan") ?? "1") || 1);
    max = Math.max(max, cells);
  }
  return max;
}

function addTableRules(service: TurndownService): void {
  service.addRule("gfmTableCell", {
    filter: (node) => CELL_TAGS.has(node.nodeName) && isDataTableNode(node),
    replacement: (content, node) => {
      const text = content.replace(/\s*\n+\s*/g, " ").replace(/\|/g, "\\|").trim();
      const span = Math.max(1, Number((node as unknown as HTMLElement).getAttribute("colspan") ?? "1") || 1);
      return ` ${text} |${" |".repeat(span - 1)}`;
    },
  });
  service.addRule("gfmTableRow", {
    filter: (node) => node.nodeName === "TR" && isDataTableNode(node),
    replacement: (content, node) => {
      const row = node as unknown as HTMLTableRowElement;
      const table = enclosingTable(node);
      if (!table) return content;
      const columns = columnCount(table);
      let cells = 0;
      for (const cell of Array.from(row.cells)) cells += Math.max(1, Number(cell.getAttribute("colspan") ?? "1") || 1);
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

/** Markdown of a DOM subtree (its URLs should already be absolute). */
export function renderMarkdown(root: Element): string {
  shared ??= createService();
  const markdown = shared.turndown(root as unknown as TurndownNode);
  return makeWellFormed(markdown).replace(/[ \t]+$/gm, "").replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * renderMarkdown for a subtree nobody reads afterwards: turndown collapses whitespace on a deep
 * clone of its input, which for a 600 KB page doubled the thread's peak memory (26 -> 70 MB);
 * here it works on the subtree itself, taken out of its document first as a clone would be (its
 * rules read a node's parents), and left there with its whitespace collapsed.
 */
export function renderMarkdownConsuming(root: Element): string {
  root.parentNode?.removeChild(root);
  const own = Object.getOwnPropertyDescriptor(root, "cloneNode");
  Object.defineProperty(root, "cloneNode", { value: () => root, configurable: true });
  try {
    return renderMarkdown(root);
  } finally {
    if (own) Object.defineProperty(root, "cloneNode", own);
    else delete (root as { cloneNode?: unknown }).cloneNode;
  }
}
