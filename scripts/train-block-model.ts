/**
 * Trains the learned block filter's model on every public source found and writes it to
 * src/web/extract/block-model.json (docs/extraction-model.md: what data, how to rebuild it, how long it takes).
 *
 *   node_modules/.bin/bun scripts/train-block-model.ts [--choice NAME] [--cached] [--cache FILE] [--train-on chaos-read|none] (default: SHIPPED_TRAIN_ON) [--news DIR] [--trafeval DIR] [--wide DIR] [--out FILE]
 * --choice: the training choice (scripts/block-model/choices.ts), by default the shipped one (SHIPPED_CHOICE).
 * --cached: the pages recorded by an earlier run (block-model/recorded-cache.ts, default folders only) instead of
 * extracting them again; refused by the cache itself when the block features have changed since.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHOICES, SHIPPED_CHOICE, trainOnSources } from "./block-model/choices.ts";
import { defaultSourceDirs, recordedPages } from "./block-model/recorded-cache.ts";
import { recordPage, trainBlockModel, type RecordedPage } from "./block-model/training.ts";
import { option } from "./bench/dev-set.ts";
import { evaluationOnlySources, loadSources, sourceOrder, WIDE_SET_DIR } from "./bench/extraction-sources.ts";

const repoRoot = join(import.meta.dir, "..");
const started = performance.now();
const choiceName = option("choice", SHIPPED_CHOICE);
const choice = CHOICES[choiceName];
if (!choice) throw new Error(`--choice: one of ${Object.keys(CHOICES).join(", ")}`);
const dirs = defaultSourceDirs(option("wide", WIDE_SET_DIR));
/** --train-on chaos-read: measured-only sources to train on after all (extraction-sources.ts MEASURED_ONLY). */
const trainOn = trainOnSources();
const EVALUATION_ONLY = evaluationOnlySources(trainOn);
let recorded: RecordedPage[];
if (process.argv.includes("--cached")) recorded = recordedPages(dirs).pages;
else recorded = loadSources({ ...dirs, news: option("news", dirs.news ?? ""), trafeval: option("trafeval", dirs.trafeval ?? ""), trafevalCurrent: undefined, irResearch: trainOn.length > 0 ? dirs.irResearch : undefined }).map(recordPage);
const pagesRecorded = recorded.filter((page) => !(page.page.source in EVALUATION_ONLY));
const labelled = pagesRecorded.flatMap((page) => page.blocks.filter((block) => block.label !== undefined));
const recordedAt = performance.now();
const model = trainBlockModel(pagesRecorded, choice);
const out = option("out", join(repoRoot, "src/web/extract/block-model.json"));
writeFileSync(out, `${JSON.stringify(model, null, 1)}\n`);
const pages = pagesRecorded.map((page) => page.page);
const counts = sourceOrder(pages).map((source) => `${source} ${pages.filter((page) => page.source === source).length}`);
console.log(`choice ${choiceName}: ${JSON.stringify(choice)}; pages: ${counts.join(", ")}`);
console.log(`blocks: ${labelled.length} labelled (${labelled.filter((block) => block.label === 1).length} boilerplate); words in the model: ${Object.keys(model.words).length}; threshold ${model.threshold}`);
console.log(`recording ${((recordedAt - started) / 1000).toFixed(1)} s, training ${((performance.now() - recordedAt) / 1000).toFixed(1)} s; written to ${out}`);
