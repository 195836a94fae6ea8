/**
 * A fast leave-one-source-out loop for trying training choices of the block model: every page is recorded once
 * (cached in .tmp/extraction/recorded.bin, rebuilt with --fresh or when the features change), then for each named
 * choice and each source in turn a model is trained on the other sources and the held-out source is scored with the
 * training code's exact proxy of the harness (the removed blocks' tokens cut out of today's text, rescored). The
 * final judgement is scripts/bench/extraction-loso.ts, which extracts the held-out pages for real.
 *
 *   node_modules/.bin/bun scripts/block-model/loso-proxy.ts [--choices edges-names,edges-words] [--fresh] [--pr] [--digits 5] [--cache FILE]
 *     [--train-on chaos-read|none]   (default SHIPPED_TRAIN_ON, choices.ts; the measured-only sources, readability and the ir-research sets, are folds and training
 *                               sources only when named here; "down" counts extraction-sources.ts VETO_SOURCES only)
 * --pr: each held-out cell also gives the change of precision and recall, and the F1 change with the removals of the
 * kinds the held-out source's truth keeps left out (training.ts keptKinds: a view of what the model does on the kinds
 * that source agrees are boilerplate; the judgement stays the plain F1).
 */
import type { BlockModel } from "../../src/web/extract/block-filter.ts";
import { option } from "../bench/dev-set.ts";
import { evaluationOnlySources, sourceOrder, VETO_SOURCES, WIDE_SET_DIR } from "../bench/extraction-sources.ts";
import { CHOICES, trainOnSources } from "./choices.ts";
import { defaultSourceDirs, recordedPages } from "./recorded-cache.ts";
import { blockKind } from "../../src/web/extract/block-filter.ts";
import { keptKinds, proxySourceScores, removedBlocks, trainBlockModel, type RecordedPage } from "./training.ts";


const started = performance.now();
const { pages: recorded, cached } = recordedPages(defaultSourceDirs(option("wide", WIDE_SET_DIR)), process.argv.includes("--fresh"));
console.log(`${recorded.length} pages ${cached ? "from the cache" : `recorded in ${((performance.now() - started) / 1000).toFixed(0)} s`}`);

const order = sourceOrder(recorded.map((page) => page.page));
const EVALUATION_ONLY = evaluationOnlySources(trainOnSources());
const folds = order.filter((source) => !(source in EVALUATION_ONLY));
const kept = keptKinds(recorded);
/** The blocks `model` removes; `agreed`: leaving out those of a kind the page's source's truth keeps (keptKinds). */
const removedBy = (model: BlockModel, agreed = false) => (page: RecordedPage) => {
  const removed = removedBlocks(model, page);
  return page.blocks.map((block, i) => removed[i] === true && !(agreed && kept.get(page.page.source)?.has(blockKind(block.numeric))));
};
const today = proxySourceScores(recorded, (page) => page.blocks.map(() => false));
const verbose = process.argv.includes("--pr");

const digits = Number(option("digits", "4"));
const f = (value: number) => (value >= 0 ? "+" : "") + value.toFixed(digits);
for (const name of option("choices", Object.keys(CHOICES).join(",")).split(",")) {
  const choice = CHOICES[name];
  if (!choice) throw new Error(`unknown choice ${name}`);
  const cells: string[] = [];
  let down = 0;
  // The last round (undefined) judges the sources no fold holds out with a model trained on every training source.
  const unfolded = order.filter((source) => EVALUATION_ONLY[source] === null);
  for (const source of [...folds, ...(unfolded.length > 0 ? [undefined] : [])]) {
    const heldOut = (of: string) => (source === undefined ? unfolded.includes(of) : of === source || EVALUATION_ONLY[of] === source);
    const model = trainBlockModel(recorded.filter((page) => !heldOut(page.page.source) && !(page.page.source in EVALUATION_ONLY)), choice);
    const heldOutPages = recorded.filter((page) => heldOut(page.page.source));
    const after = proxySourceScores(heldOutPages, removedBy(model));
    const agreed = verbose ? proxySourceScores(heldOutPages, removedBy(model, true)) : undefined;
    for (const [of, score] of after) {
      const before = today.get(of) ?? { f1: 0, precision: 0, recall: 0 };
      const delta = score.f1 - before.f1;
      if (delta < -1e-9 && VETO_SOURCES.includes(of)) down++;
      const agreedDelta = (agreed?.get(of)?.f1 ?? 0) - before.f1;
      const pr = verbose ? ` P ${f(score.precision - before.precision)} R ${f(score.recall - before.recall)} [on its agreed kinds ${f(agreedDelta)}]` : "";
      cells.push(`${of} ${f(delta)}${pr} (thr ${model.also ? `${model.threshold}/${model.also.threshold}` : model.threshold})`);
    }
  }
  console.log(`${name.padEnd(18)} down=${down}  ${cells.join(" | ")}`);
}
console.log(`today: ${[...today].map(([source, score]) => `${source} ${score.f1.toFixed(4)} (P ${score.precision.toFixed(3)} R ${score.recall.toFixed(3)})`).join(", ")}`);
