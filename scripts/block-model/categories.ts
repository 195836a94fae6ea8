/**
 * How each public source's truth treats each kind of block the block filter could remove (captions and credits,
 * byline/dateline lines, related and teaser items, share and newsletter widgets, comment lines, link-dense lines,
 * the headline zone, the tail): for every source and kind, the labelled blocks and the share of their tokens the
 * truth calls boilerplate. A kind is "agreed" when every source with enough labelled blocks of it calls most of it
 * boilerplate; a gate that lets the model remove only agreed kinds (block-filter.ts, gate "agreed") cannot fail a
 * held-out source merely because that source's convention keeps the kind. Reads the recorded pages
 * (recorded-cache.ts).
 *
 *   node_modules/.bin/bun scripts/block-model/categories.ts [--fresh]
 */
import { BLOCK_KINDS } from "../../src/web/extract/block-filter.ts";
import { option } from "../bench/dev-set.ts";
import { EVALUATION_ONLY, sourceOrder, WIDE_SET_DIR } from "../bench/extraction-sources.ts";
import { defaultSourceDirs, recordedPages } from "./recorded-cache.ts";
import { kindTable } from "./training.ts";

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
