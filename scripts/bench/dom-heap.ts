/**
 * What a parsed page costs in JavaScript heap: each dev-set page is parsed as the first extraction
 * try parses it (minimized, pruned), and the heap is measured after a full collection with the
 * document held, then released. Prints the median, p95 and largest page's heap and bytes per node
 * (attributes counted as nodes: happy-dom makes each one a Node), and the share of each page's
 * characters the first try parses (what collection-pacing.ts counts). Run it with and without
 * patches/happy-dom+21.0.4.patch applied (`npx patch-package --reverse`, then `npx patch-package`)
 * to compare the two.
 *   node_modules/.bin/bun scripts/bench/dom-heap.ts [--data DIR] [--pages N]
 */
import { heapStats } from "bun:jsc";
import type { Node } from "happy-dom";
import { minimizeHtml, parseHtmlDocument } from "../../src/web/extract/content-parse.ts";
import { pruneDroppedSubtrees } from "../../src/web/extract/content-prune.ts";
import { DEV_SET_DIR, loadDevPages, option } from "./dev-set.ts";

const pages = loadDevPages(option("data", DEV_SET_DIR), Number(option("pages", "0")));

function countNodes(node: Node): number {
  let count = 1 + ((node as unknown as { attributes?: { length: number } }).attributes?.length ?? 0);
  for (const child of Array.from(node.childNodes)) count += countNodes(child as unknown as Node);
  return count;
}

parseHtmlDocument("<p>warm</p>");
const rows: { name: number; chars: number; parsed: number; bytes: number; nodes: number }[] = [];
for (const [name, page] of pages.entries()) {
  const html = pruneDroppedSubtrees(minimizeHtml(page));
  // A parse lets go of the page before it (content-parse's shared window): the empty one is cheap.
  parseHtmlDocument("");
  Bun.gc(true);
  const before = heapStats().heapSize;
  const document = parseHtmlDocument(html);
  Bun.gc(true);
  const bytes = heapStats().heapSize - before;
  rows.push({ name, chars: page.length, parsed: html.length, bytes, nodes: countNodes(document as unknown as Node) });
}
const sorted = [...rows].sort((a, b) => a.bytes - b.bytes);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(2)} MiB`;
console.log(`${rows.length} pages parsed as the first extraction try parses them; heap held by the document after a full collection`);
for (const [label, row] of [["median", at(0.5)], ["p95", at(0.95)], ["largest", sorted.at(-1)!]] as const) {
  console.log(`${label.padEnd(8)} page ${String(row.name).padStart(3)} (${row.chars} chars): ${mib(row.bytes).padStart(10)}, ${row.nodes} nodes and attributes, ${(row.bytes / row.nodes).toFixed(0)} bytes each`);
}
const total = rows.reduce((sum, row) => sum + row.bytes, 0);
const nodes = rows.reduce((sum, row) => sum + row.nodes, 0);
console.log(`all pages: ${mib(total)} for ${nodes} nodes and attributes, ${(total / nodes).toFixed(0)} bytes each`);
const shares = rows.map((row) => row.parsed / row.chars).sort((a, b) => a - b);
const share = (q: number) => `${Math.round(shares[Math.min(shares.length - 1, Math.floor(q * shares.length))]! * 100)}%`;
const parsedShare = rows.reduce((sum, row) => sum + row.parsed, 0) / rows.reduce((sum, row) => sum + row.chars, 0);
console.log(`share of a page's characters the first try parses: p10 ${share(0.1)}, median ${share(0.5)}, p90 ${share(0.9)}, all pages ${Math.round(parsedShare * 100)}%`);
