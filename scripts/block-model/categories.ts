/**
 * How each public source's truth treats each kind of block the block filter could remove (captions and credits,
 * byline/dateline lines, related and teaser items, share and newsletter widgets, comment lines, link-dense lines,
 * the headline zone, the tail): for every source and kind, the labelled blocks and the share of their tokens the
 * truth calls boilerplate. A kind is "agreed" when every source with enough labelled blocks of it calls most of it
 * boilerplate; a gate that lets the model remove only agreed kinds (block-filter.ts, gate "agreed") cannot fail a
 * held-out source merely because that source's convention keeps the kind. Reads the recorded pages
 * (recorded-cache.ts).
 *
 *   node_modules/.bin/bun scripts/block-model/categories.ts [--fresh] [--cache FILE] [--model FILE [--only-also]] [--lines SOURCE]
 * --model FILE: also what that model removes on each source's recorded pages (its page gate, gate and threshold),
 * by kind (a phrase line by its phrase), with the share of those blocks' tokens each truth calls boilerplate;
 * --only-also: only the blocks its second model (BlockModel.also) removes and its first does not;
 * --lines SOURCE: the removed lines of that source (never of chaos-unread or big9, which stay unread).
 */
import { readFileSync } from "node:fs";
import { BLOCK_KINDS, blockKind, type BlockModel } from "../../src/web/extract/block-filter.ts";
import { NUMERIC_FEATURES } from "../../src/web/extract/block-features.ts";
import { option } from "../bench/dev-set.ts";
import { EVALUATION_ONLY, refuseUnread, sourceOrder, WIDE_SET_DIR } from "../bench/extraction-sources.ts";
import { defaultSourceDirs, recordedPages } from "./recorded-cache.ts";
import { kindTable, removedBlocks } from "./training.ts";

const { pages } = recordedPages(defaultSourceDirs(option("wide", WIDE_SET_DIR)), process.argv.includes("--fresh"));
const order = sourceOrder(pages.map((page) => page.page));
const table = kindTable(pages);
console.log(`share of each kind's labelled tokens the source's truth calls boilerplate (labelled blocks in brackets)`);
console.log(`${"kind".padEnd(12)} ${order.map((source) => source.padStart(18)).join("")}`);
for (const kind of BLOCK_KINDS) {
  const cells = order.map((source) => {
    const cell = table.get(source)?.get(kind);
    return (cell ? `${(cell[2] / cell[1]).toFixed(2)} (${cell[0]})` : "-").padStart(18);
  });
  const shares = order
    .filter((source) => !(source in EVALUATION_ONLY))
    .map((source) => table.get(source)?.get(kind))
    .filter((cell): cell is [number, number, number] => cell !== undefined && cell[0] >= 20)
    .map((cell) => cell[2] / cell[1]);
  console.log(`${kind.padEnd(12)} ${cells.join("")}   min ${shares.length ? Math.min(...shares).toFixed(2) : "-"}`);
}
console.log(`\nwhere each source's labelled boilerplate tokens sit (share of the source's boilerplate tokens inside the content, by kind)`);
for (const kind of BLOCK_KINDS) {
  const cells = order.map((source) => {
    const row = table.get(source);
    const all = [...(row?.values() ?? [])].reduce((sum, cell) => sum + cell[2], 0) || 1;
    return (row?.get(kind) ? (((row.get(kind) as [number, number, number])[2] / all).toFixed(2)) : "-").padStart(18);
  });
  console.log(`${kind.padEnd(12)} ${cells.join("")}`);
}

const modelFile = option("model", "");
if (modelFile) {
  const model = JSON.parse(readFileSync(modelFile, "utf8")) as BlockModel;
  const onlyAlso = process.argv.includes("--only-also");
  if (onlyAlso && !model.also) throw new Error(`--only-also: ${modelFile} has no second model`);
  /** The blocks counted: all the model removes, or with --only-also those only its second model removes. */
  const counted = (page: (typeof pages)[number]) => {
    if (!onlyAlso) return removedBlocks(model, page);
    const first = removedBlocks({ ...model, also: undefined }, page);
    return removedBlocks(model.also as BlockModel, page).map((removed, i) => removed && !first[i]);
  };
  const phraseAt = NUMERIC_FEATURES.flatMap((name, i) => (name.startsWith("phrase_") ? [[i, name.slice(7)] as const] : []));
  const what = (numeric: Float64Array) => {
    const kind = blockKind(numeric);
    return kind === "phrase" ? `phrase:${phraseAt.find(([i]) => numeric[i] === 1)?.[1]}` : kind;
  };
  const lines = option("lines", "");
  refuseUnread(lines);
  const removed = new Map<string, Map<string, [number, number, number]>>();
  for (const page of pages) {
    const removedHere = counted(page);
    for (const [i, block] of page.blocks.entries()) {
      if (block.label === undefined || !removedHere[i]) continue;
      const row = removed.get(what(block.numeric)) ?? new Map<string, [number, number, number]>();
      const cell = row.get(page.page.source) ?? [0, 0, 0];
      const count = Math.max(1, block.text.split(" ").length);
      row.set(page.page.source, [cell[0] + 1, cell[1] + count, cell[2] + (block.label === 1 ? count : 0)]);
      removed.set(what(block.numeric), row);
      if (page.page.source === lines) console.log(`${page.page.id}\t${what(block.numeric)}\t${block.label === 1 ? "boilerplate" : "content"}\t${JSON.stringify(block.text.slice(0, 100))}`);
    }
  }
  console.log(`\nwhat ${modelFile}${onlyAlso ? "'s second model alone" : ""} removes (labelled blocks; share of their tokens the source's truth calls boilerplate, blocks in brackets)`);
  console.log(`${"kind".padEnd(16)} ${order.map((source) => source.padStart(18)).join("")}`);
  for (const [kind, row] of [...removed].sort()) {
    console.log(`${kind.padEnd(16)} ${order.map((source) => { const cell = row.get(source); return (cell ? `${(cell[2] / cell[1]).toFixed(2)} (${cell[0]})` : "-").padStart(18); }).join("")}`);
  }
}
