/**
 * Leave-one-source-out judgement of the learned block filter (issue 44): for each public source in turn, the block
 * model is trained on all the others (scripts/block-model/training.ts) and the left-out source is extracted with
 * it; its F1 is printed beside today's extraction (the filter off) in the same run. A source the model never saw
 * going down means the filter does not generalise. Then the shipped model (src/web/extract/block-model.json,
 * trained on every source: seen figures) on each source, the wide set pooled, and the 150-page dev set.
 *
 *   node_modules/.bin/bun scripts/bench/extraction-loso.ts [--news DIR] [--trafeval DIR] [--wide DIR] [--json OUT]
 *     [--choice NAME] [--criterion mean|maximin] [--l2 1e-4] [--min-pages 10]   (the folds' training choices, block-model/choices.ts; the shipped column stays the file's)
 *     [--model FILE]   (the last column's model: a file train-block-model.ts --out FILE wrote, in place of the shipped one)
 *     [--ref REV]      (also a revision's extraction, filter off, in a temporary worktree: a column beside today's, same run)
 * --news: unseen-set.ts --source news --out DIR; --trafeval: ../shared/bench/extraction/trafeval/prepare.py --out DIR;
 * --trafeval-current: scripts/bench/trafeval-current.py --out DIR (each skipped when absent; default
 * .tmp/extraction/news, .tmp/extraction/trafeval and .tmp/extraction/trafeval-2026 in the repository).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { modelJudge, SHIPPED_BLOCK_MODEL, type BlockModel } from "../../src/web/extract/block-filter.ts";
import { CHOICES, SHIPPED_CHOICE } from "../block-model/choices.ts";
import { recordPage, trainBlockModel, type TrainOptions } from "../block-model/training.ts";
import { DEV_SET_DIR, option } from "./dev-set.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";
import { EVALUATION_ONLY, loadSources, loadTextSet, scoreBySource, sourceOrder, WIDE_SET_DIR, type SourcePage, type SourceScore } from "./extraction-sources.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const pages = loadSources({
  wide: option("wide", WIDE_SET_DIR),
  news: option("news", join(repoRoot, ".tmp/extraction/news")),
  trafeval: option("trafeval", join(repoRoot, ".tmp/extraction/trafeval")),
  trafevalCurrent: option("trafeval-current", join(repoRoot, ".tmp/extraction/trafeval-2026")),
});
const order = sourceOrder(pages);
/** Training choices to judge (block-model/choices.ts, by name; the default is the shipped model's), --criterion, --l2 and --min-pages over it. */
const choiceName = option("choice", SHIPPED_CHOICE);
const choice = CHOICES[choiceName];
if (!choice) throw new Error(`--choice: one of ${Object.keys(CHOICES).join(", ")}`);
const trainOptions: TrainOptions = {
  ...choice,
  ...(option("criterion", "") ? { criterion: option("criterion", "") === "maximin" ? "maximin" : "mean" } : {}),
  ...(option("l2", "") ? { l2: Number(option("l2", "")) } : {}),
  ...(option("min-pages", "") ? { minPages: Number(option("min-pages", "")) } : {}),
};
const modelFile = option("model", "");
/** The last column's model: the shipped one, or --model FILE. */
const seenModel: BlockModel = modelFile ? (JSON.parse(readFileSync(modelFile, "utf8")) as BlockModel) : SHIPPED_BLOCK_MODEL;
const started = performance.now();

/** --ref REV: that revision's extraction (filter off) of every page and of the dev set, its worktree removed after. */
type ExtractSync = (input: { html: string; url: string; markdown: boolean; blockJudge?: null }) => { text: string };
const refRevision = option("ref", "");
let refName = "";
const refTexts = new Map<string, string>();
const refDevTexts = new Map<string, string>();
const extractAllWith = (extract: ExtractSync, of: readonly SourcePage[], into: Map<string, string>) => {
  for (const page of of) {
    try {
      into.set(page.id, extract({ html: page.html, url: page.url, markdown: false, blockJudge: null }).text);
    } catch {
      into.set(page.id, "");
    }
  }
};
if (refRevision) {
  const reference = createReferenceTree(refRevision);
  try {
    refName = reference.name;
    const { extractHtmlSync: extractRef } = (await import(moduleIn(reference.dir, "src/web/extract/extract.ts"))) as { extractHtmlSync: ExtractSync };
    extractAllWith(extractRef, pages, refTexts);
    extractAllWith(extractRef, loadTextSet(option("dev", DEV_SET_DIR)), refDevTexts);
  } finally {
    reference.remove();
  }
}

/** Today's text of every page (the recorder removes nothing) and its blocks. */
const recorded = pages.map(recordPage);
const todayTexts = new Map(recorded.map((page) => [page.page.id, page.text]));
const blockCount = recorded.reduce((sum, page) => sum + page.blocks.length, 0);
const labelled = recorded.flatMap((page) => page.blocks.filter((block) => block.label !== undefined));
const recordedAt = performance.now();

function extractWith(model: BlockModel, of: readonly SourcePage[], into: Map<string, string>): void {
  const judge = modelJudge(model);
  for (const page of of) {
    try {
      into.set(page.id, extractHtmlSync({ html: page.html, url: page.url, markdown: false, blockJudge: judge }).text);
    } catch {
      into.set(page.id, "");
    }
  }
}

const heldOutTexts = new Map<string, string>();
const thresholds: Record<string, number> = {};
let trainingMs = 0;
const folds = order.filter((source) => !(source in EVALUATION_ONLY));
for (const source of folds) {
  const trainStart = performance.now();
  const model = trainBlockModel(recorded.filter((page) => page.page.source !== source && !(page.page.source in EVALUATION_ONLY)), trainOptions);
  trainingMs += performance.now() - trainStart;
  const heldOut = (of: string) => of === source || EVALUATION_ONLY[of] === source;
  for (const of of order) if (heldOut(of)) thresholds[of] = model.threshold;
  extractWith(model, pages.filter((page) => heldOut(page.source)), heldOutTexts);
}
const shippedTexts = new Map<string, string>();
extractWith(seenModel, pages, shippedTexts);

const today = scoreBySource(pages, todayTexts, order);
const refScores = refRevision ? scoreBySource(pages, refTexts, order) : [];
const heldOut = scoreBySource(pages, heldOutTexts, order);
const shipped = scoreBySource(pages, shippedTexts, order);
const wideSources = ["dragnet", "cleaneval", "portal", "readability"];
const widePages = pages.map((page) => (wideSources.includes(page.source) ? { ...page, source: "wide pooled" } : page));
const pooled = (texts: Map<string, string>) => scoreBySource(widePages, texts, ["wide pooled"])[0] as SourceScore;
const devPages = loadTextSet(option("dev", DEV_SET_DIR));
const devToday = new Map(devPages.map((page) => [page.id, extractHtmlSync({ html: page.html, url: page.url, markdown: false, blockJudge: null }).text]));
const devShipped = new Map<string, string>();
extractWith(seenModel, devPages, devShipped);

const f = (value: number) => value.toFixed(4);
const cell = (score: SourceScore) => `${f(score.f1)} (P ${score.precision.toFixed(3)} R ${score.recall.toFixed(3)})`;
console.log(`choice ${choiceName}: ${JSON.stringify(trainOptions)}`);
console.log(`pages ${pages.length}, blocks ${blockCount}, labelled ${labelled.length} (boilerplate ${labelled.filter((block) => block.label === 1).length}); recording ${((recordedAt - started) / 1000).toFixed(1)} s, training ${folds.length} models ${(trainingMs / 1000).toFixed(1)} s`);
console.log(`leave-one-source-out F1 (the model scoring a source was trained on the other sources only; ${Object.entries(EVALUATION_ONLY).map(([only, fold]) => `${only} is never trained on and is held out with ${fold}`).join("; ")})`);
if (refRevision) console.log(`ref ${refName} (filter off, same run) beside today (this tree, filter off):`);
console.log(`${"source".padEnd(18)} ${"pages".padStart(5)}  ${refRevision ? `${`ref ${refName}`.padEnd(28)}  ` : ""}${"today (filter off)".padEnd(28)}  ${"held out (filter on)".padEnd(28)}  ${"delta".padStart(7)}  thr   | ${modelFile ? modelFile : "shipped model"} (seen)`);
const rows: Record<string, unknown>[] = [];
for (const [i, source] of order.entries()) {
  const before = today[i] as SourceScore;
  const after = heldOut[i] as SourceScore;
  const seen = shipped[i] as SourceScore;
  const delta = after.f1 - before.f1;
  const refCell = refRevision ? `${cell(refScores[i] as SourceScore).padEnd(28)}  ` : "";
  console.log(`${source.padEnd(18)} ${String(before.pages).padStart(5)}  ${refCell}${cell(before).padEnd(28)}  ${cell(after).padEnd(28)}  ${(delta >= 0 ? "+" : "") + delta.toFixed(4)}  ${(thresholds[source] ?? 0).toFixed(2)}  | ${cell(seen)}`);
  rows.push({ source, pages: before.pages, today: before, heldOut: after, shipped: seen, threshold: thresholds[source] });
}
const wideToday = pooled(todayTexts);
const wideHeldOut = pooled(heldOutTexts);
const wideShipped = pooled(shippedTexts);
const wideRef = refRevision ? pooled(refTexts) : undefined;
console.log(`${"wide pooled".padEnd(18)} ${String(wideToday.pages).padStart(5)}  ${wideRef ? `${cell(wideRef).padEnd(28)}  ` : ""}${cell(wideToday).padEnd(28)}  ${cell(wideHeldOut).padEnd(28)}  ${((wideHeldOut.f1 - wideToday.f1 >= 0 ? "+" : "") + (wideHeldOut.f1 - wideToday.f1).toFixed(4))}        | ${cell(wideShipped)}`);
const [devBefore, devAfter] = [scoreBySource(devPages, devToday, ["dev"])[0], scoreBySource(devPages, devShipped, ["dev"])[0]] as [SourceScore, SourceScore];
const devRef = refRevision ? (scoreBySource(devPages, refDevTexts, ["dev"])[0] as SourceScore) : undefined;
console.log(`${"dev (150, unseen by training)".padEnd(30)} ${devRef ? `ref ${refName} ${cell(devRef)}   ` : ""}today ${cell(devBefore)}   ${modelFile ? modelFile : "shipped model"} ${cell(devAfter)}`);
const worse = order.filter((_, i) => (heldOut[i] as SourceScore).f1 < (today[i] as SourceScore).f1);
const belowRef = refRevision ? order.filter((_, i) => (today[i] as SourceScore).f1 < (refScores[i] as SourceScore).f1) : [];
if (refRevision) console.log(`RESULT_REF ref=${refName} today_below_ref=${belowRef.length}${belowRef.length ? ` (${belowRef.join(",")})` : ""} wide_pooled_ref=${f((wideRef as SourceScore).f1)} dev_ref=${f((devRef as SourceScore).f1)}`);
console.log(`RESULT sources=${order.length} held_out_down=${worse.length}${worse.length ? ` (${worse.join(",")})` : ""} wide_pooled_today=${f(wideToday.f1)} wide_pooled_held_out=${f(wideHeldOut.f1)} wide_pooled_shipped=${f(wideShipped.f1)} dev_today=${f(devBefore.f1)} dev_shipped=${f(devAfter.f1)}`);
const json = option("json", "");
if (json) writeFileSync(json, JSON.stringify({ rows, wide: { today: wideToday, heldOut: wideHeldOut, shipped: wideShipped }, dev: { today: devBefore, shipped: devAfter } }, null, 1));
