/**
 * Trains the learned block filter's model on every public source found and writes it to
 * src/web/extract/block-model.json (docs/extraction-model.md: what data, how to rebuild it, how long it takes).
 *
 *   node_modules/.bin/bun scripts/train-block-model.ts [--news DIR] [--trafeval DIR] [--wide DIR] [--out FILE]
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordPage, trainBlockModel } from "./block-model/training.ts";
import { option } from "./bench/dev-set.ts";
import { loadSources, sourceOrder, WIDE_SET_DIR } from "./bench/extraction-sources.ts";

const repoRoot = join(import.meta.dir, "..");
const started = performance.now();
const pages = loadSources({
  wide: option("wide", WIDE_SET_DIR),
  news: option("news", join(repoRoot, ".tmp/extraction/news")),
  trafeval: option("trafeval", join(repoRoot, ".tmp/extraction/trafeval")),
});
const pagesRecorded = pages.map(recordPage);
const labelled = pagesRecorded.flatMap((page) => page.blocks.filter((block) => block.label !== undefined));
const recorded = performance.now();
const model = trainBlockModel(pagesRecorded);
const out = option("out", join(repoRoot, "src/web/extract/block-model.json"));
writeFileSync(out, `${JSON.stringify(model, null, 1)}\n`);
const counts = sourceOrder(pages).map((source) => `${source} ${pages.filter((page) => page.source === source).length}`);
console.log(`pages: ${counts.join(", ")}`);
console.log(`blocks: ${labelled.length} labelled (${labelled.filter((block) => block.label === 1).length} boilerplate); words in the model: ${Object.keys(model.words).length}; threshold ${model.threshold}`);
console.log(`recording ${((recorded - started) / 1000).toFixed(1)} s, training ${((performance.now() - recorded) / 1000).toFixed(1)} s; written to ${out}`);
