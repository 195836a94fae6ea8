/**
 * Where today's extraction loses against each public source's truth (issue 44, the fourth try): per source, the
 * recall and precision lost and how much of it comes from pages that lost most of their article (a wrong container
 * or a page whose snapshot holds none) against pages that lost a line or two; then, for one source, what is missed
 * (truth lines of eight words or more, or "with" snippets, absent from today's text) and what is added (a snippet
 * truth's "without" snippets present), each missed one with its place in the page: the path from the element both it
 * and a line we kept share (the lowest common ancestor) down to it, and down to the kept line, so what keeps
 * recurring (a lead in the header, comments, a title heading outside the chosen block) can be judged on every source.
 *
 *   node_modules/.bin/bun scripts/bench/extraction-misses.ts                       (the table of every source)
 *   node_modules/.bin/bun scripts/bench/extraction-misses.ts --source dragnet [--limit 60] [--added]
 *   node_modules/.bin/bun scripts/bench/extraction-misses.ts --source chaos-read --kept [--limit 60]
 * --kept (text truths): what today's text keeps that the truth does not, the leaf blocks labelled boilerplate, by
 * kind (block-filter.ts blockKind) with their share of the source's tokens, then page by page. Sources kept unread
 * (chaos-unread, big9) are refused: only their figures are quoted.
 * Today's texts come from the recorded pages (scripts/block-model/recorded-cache.ts: recorded again when the code
 * of src/web/extract/ changed); the sources' folders as scripts/bench/extraction-loso.ts reads them.
 */
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { isText, parentElementOf, type AnyNode, type Element } from "../../src/web/extract/dom.ts";
import { blockKind } from "../../src/web/extract/block-filter.ts";
import { defaultSourceDirs, recordedPages } from "../block-model/recorded-cache.ts";
import { option } from "./dev-set.ts";
import { loadSources, refuseUnread, snippetCounts, sourceOrder, WIDE_SET_DIR, type SourcePage } from "./extraction-sources.ts";

const dirs = defaultSourceDirs(option("wide", WIDE_SET_DIR));
const { pages: recorded } = recordedPages(dirs);
const texts = new Map(recorded.map((page) => [page.page.id, page.text]));
const collapse = (value: string) => value.replace(/\s+/g, " ").trim();

/** A page's precision and recall as the harness counts them (shingles for a text truth, snippets otherwise). */
function pageScore(page: SourcePage, text: string): { precision: number; recall: number } {
  const found = recorded.find((one) => one.page.id === page.id);
  if (page.truth.kind === "text") {
    const [tp, fp, fn] = found?.counts ?? [0, 0, 0];
    return { precision: tp + fp > 0 ? tp / (tp + fp) : 1, recall: tp + fn > 0 ? tp / (tp + fn) : 1 };
  }
  const [tp, fn, fp] = snippetCounts(page.truth, text);
  return { precision: tp + fp > 0 ? tp / (tp + fp) : 1, recall: tp + fn > 0 ? tp / (tp + fn) : 1 };
}

const source = option("source", "");
if (source === "") {
  const bands = [0.5, 0.95, 1.0001];
  const byPage = recorded.map((one) => ({ source: one.page.source, ...pageScore(one.page, one.text) }));
  console.log("source             pages  recall lost  from pages under 0.5 recall | 0.5-0.95 | over 0.95     precision lost  from pages under 0.5");
  for (const name of sourceOrder(recorded.map((one) => one.page))) {
    const own = byPage.filter((row) => row.source === name);
    const lost = (rows: typeof own, of: "recall" | "precision") => rows.reduce((sum, row) => sum + 1 - row[of], 0) / own.length;
    const cells = bands.map((top, i) => {
      const rows = own.filter((row) => row.recall >= (i === 0 ? -1 : (bands[i - 1] as number)) && row.recall < top);
      return `${String(rows.length).padStart(4)} ${lost(rows, "recall").toFixed(4)}`;
    });
    const poor = own.filter((row) => row.precision < 0.5);
    console.log(`${name.padEnd(18)} ${String(own.length).padStart(5)}  ${lost(own, "recall").toFixed(4)}       ${cells.join(" | ")}     ${lost(own, "precision").toFixed(4)}          ${String(poor.length).padStart(4)} ${lost(poor, "precision").toFixed(4)}`);
  }
  process.exit(0);
}

refuseUnread(source);
const limit = Number(option("limit", "60"));
if (process.argv.includes("--kept")) {
  const own = recorded.filter((one) => one.page.source === source && one.page.truth.kind === "text");
  const words = (text: string) => text.split(" ").filter(Boolean).length;
  const total = own.reduce((sum, one) => sum + words(collapse(one.text)), 0) || 1;
  const byKind = new Map<string, [number, number]>();
  for (const one of own) for (const block of one.blocks) if (block.label === 1) {
    const cell = byKind.get(blockKind(block.numeric)) ?? [0, 0];
    byKind.set(blockKind(block.numeric), [cell[0] + 1, cell[1] + words(block.text)]);
  }
  console.log(`${source}: ${own.length} pages, ${total} words of today's text; kept blocks the truth calls boilerplate, by kind (blocks, share of the words):`);
  for (const [kind, [blocks, count]] of [...byKind].sort((a, b) => b[1][1] - a[1][1])) console.log(`  ${kind.padEnd(10)} ${String(blocks).padStart(5)}  ${(count / total).toFixed(4)}`);
  const [tp, fp] = own.reduce((sum, one) => [sum[0] + (one.counts?.[0] ?? 0), sum[1] + (one.counts?.[1] ?? 0)], [0, 0]);
  console.log(`  shingles kept that the truth lacks: ${(fp / (tp + fp)).toFixed(4)} of today's`);
  const worst = own.map((one) => ({ one, ...pageScore(one.page, one.text) })).sort((a, b) => a.precision - b.precision).slice(0, limit);
  for (const { one, precision } of worst) {
    console.log(`${one.page.id} precision ${precision.toFixed(2)}`);
    for (const block of one.blocks.filter((b) => b.label === 1).slice(0, 6)) console.log(`    ${blockKind(block.numeric).padEnd(9)} ${JSON.stringify(block.text.slice(0, 100))}`);
  }
  process.exit(0);
}
const describe = (element: Element) => {
  const id = element.attribs.id ? `#${element.attribs.id.slice(0, 25)}` : "";
  const classes = (element.attribs.class ?? "").trim().split(/\s+/).filter((word) => word !== "").slice(0, 2).join(".");
  return `${element.name}${id}${classes ? `.${classes.slice(0, 40)}` : ""}`;
};
const ancestors = (node: AnyNode) => {
  const chain: Element[] = [];
  for (let element = parentElementOf(node); element; element = parentElementOf(element)) chain.push(element);
  return chain;
};
function textNodes(node: AnyNode, into: { node: AnyNode; text: string }[]): void {
  if (isText(node)) into.push({ node, text: collapse(node.data) });
  else for (const child of (node as Element).children ?? []) textNodes(child, into);
}
/** The text node holding the start of `line` (its first 25 characters, else its first three words). */
function locate(nodes: readonly { node: AnyNode; text: string }[], line: string): AnyNode | undefined {
  const head = collapse(line).slice(0, 25);
  const words = collapse(line).split(" ").slice(0, 3).join(" ");
  return nodes.find((one) => one.text.includes(head))?.node ?? (words.length > 8 ? nodes.find((one) => one.text.includes(words))?.node : undefined);
}

let printed = 0;
for (const page of loadSources(dirs).filter((one) => one.source === source)) {
  if (printed >= limit) break;
  const text = collapse(texts.get(page.id) ?? "");
  if (process.argv.includes("--added")) {
    if (page.truth.kind !== "snippets") continue;
    for (const snippet of page.truth.without) if (snippet.trim() !== "" && text.includes(collapse(snippet))) console.log(`${page.id}\tadded ${JSON.stringify(snippet.slice(0, 90))}`), printed++;
    continue;
  }
  const wanted = page.truth.kind === "snippets" ? page.truth.with.filter((one) => one.trim() !== "") : page.truth.text.split("\n").map(collapse).filter((line) => line.split(" ").length >= 8);
  const missed = wanted.filter((line) => !text.includes(page.truth.kind === "snippets" ? collapse(line) : line.slice(0, 40)));
  if (missed.length === 0) continue;
  const kept = wanted.filter((line) => !missed.includes(line));
  const anchorLine = kept[Math.floor(kept.length / 2)] ?? (texts.get(page.id) ?? "").split("\n").sort((a, b) => b.length - a.length)[0] ?? "";
  const nodes: { node: AnyNode; text: string }[] = [];
  textNodes(parsePage(cutUnreadMarkup(page.html)).body, nodes);
  const anchor = locate(nodes, anchorLine);
  const anchorChain = anchor ? ancestors(anchor) : [];
  const { recall } = pageScore(page, texts.get(page.id) ?? "");
  console.log(`${page.id} recall ${recall.toFixed(2)}, today's text ${text.length} characters, missed ${missed.length} of ${wanted.length}`);
  for (const line of missed.slice(0, 3)) {
    const node = locate(nodes, line);
    if (!node) {
      console.log(`    not in the page's HTML as text: ${JSON.stringify(line.slice(0, 60))}`);
      continue;
    }
    const chain = ancestors(node);
    const shared = chain.find((element) => anchorChain.includes(element));
    const down = (of: Element[]) => (shared ? of.slice(0, of.indexOf(shared)) : of).reverse().map(describe).join(" > ");
    console.log(`    ${JSON.stringify(line.slice(0, 60))}  under ${shared ? describe(shared) : "(no kept line)"}: ${down(chain)}  | kept: ${down(anchorChain).split(" > ").slice(0, 3).join(" > ")}`);
  }
  printed++;
}
