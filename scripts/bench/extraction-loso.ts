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
 *     [--ref REV[,REV]] (also revisions' extraction, filter off, each in a temporary worktree: a column beside today's, same run;
 *                      and each revision's default extraction, as it shipped, in a table beside this tree's shipped model)
 *     [--ir-research DIR] [--train-on chaos-read|none]   (default SHIPPED_TRAIN_ON, choices.ts; readability and the ir-research sources, big9, chaos-read and
 *                      chaos-unread, are measured only, held out by every fold and judged with a model trained on all the
 *                      training sources, unless --train-on names them; the RESULT line's veto counts VETO_SOURCES only)
 * --news: unseen-set.ts --source news --out DIR; --trafeval: ../shared/bench/extraction/trafeval/prepare.py --out DIR;
 * --trafeval-current: scripts/bench/trafeval-current.py --out DIR; --ir-research: ir-research-set.ts --out DIR (each
 * skipped when absent; default .tmp/extraction/news, .tmp/extraction/trafeval, .tmp/extraction/trafeval-2026 and
 * .tmp/extraction/ir-research in the repository). Sources whose pages name two groups or more (big9's years) also
 * get a row per group.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { modelJudge, SHIPPED_BLOCK_MODEL, type BlockModel } from "../../src/web/extract/block-filter.ts";
import { CHOICES, SHIPPED_CHOICE, trainOnSources } from "../block-model/choices.ts";
import { recordPage, trainBlockModel, type TrainOptions } from "../block-model/training.ts";
import { DEV_SET_DIR, option } from "./dev-set.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";
import { evaluationOnlySources, VETO_SOURCES, groupedPages, loadSources, loadTextSet, scoreBySource, sourceOrder, WIDE_SET_DIR, type SourcePage, type SourceScore } from "./extraction-sources.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const pages = loadSources({
  wide: option("wide", WIDE_SET_DIR),
  news: option("news", join(repoRoot, ".tmp/extraction/news")),
  trafeval: option("trafeval", join(repoRoot, ".tmp/extraction/trafeval")),
  trafevalCurrent: option("trafeval-current", join(repoRoot, ".tmp/extraction/trafeval-2026")),
  irResearch: option("ir-research", join(repoRoot, ".tmp/extraction/ir-research")),
});
const order = sourceOrder(pages);
const EVALUATION_ONLY = evaluationOnlySources(trainOnSources());
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

/** --ref REV[,REV]: each revision's extraction of every page and of the dev set, filter off and as it shipped (its default), its worktree removed after. */
type ExtractSync = (input: { html: string; url: string; markdown: boolean; blockJudge?: null }) => { text: string };
const refRevisions = option("ref", "").split(",").filter(Boolean);
const refs: { name: string; texts: Map<string, string>; devTexts: Map<string, string>; shippedTexts: Map<string, string>; devShippedTexts: Map<string, string> }[] = [];
const extractAllWith = (extract: ExtractSync, of: readonly SourcePage[], into: Map<string, string>, asShipped = false) => {
  for (const page of of) {
    try {
      into.set(page.id, extract({ html: page.html, url: page.url, markdown: false, ...(asShipped ? {} : { blockJudge: null }) }).text);
    } catch {
      into.set(page.id, "");
    }
  }
};
for (const revision of refRevisions) {
  const reference = createReferenceTree(revision);
  try {
    const ref = { name: reference.name, texts: new Map<string, string>(), devTexts: new Map<string, string>(), shippedTexts: new Map<string, string>(), devShippedTexts: new Map<string, string>() };
    const { extractHtmlSync: extractRef } = (await import(moduleIn(reference.dir, "src/web/extract/extract.ts"))) as { extractHtmlSync: ExtractSync };
    const devSet = loadTextSet(option("dev", DEV_SET_DIR));
    extractAllWith(extractRef, pages, ref.texts);
    extractAllWith(extractRef, devSet, ref.devTexts);
    extractAllWith(extractRef, pages, ref.shippedTexts, true);
    extractAllWith(extractRef, devSet, ref.devShippedTexts, true);
    refs.push(ref);
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
/** Sources no fold holds out (null in EVALUATION_ONLY): judged with a model trained on every training source. */
const unfolded = order.filter((source) => EVALUATION_ONLY[source] === null);
if (unfolded.length > 0) {
  const trainStart = performance.now();
  const model = trainBlockModel(recorded.filter((page) => !(page.page.source in EVALUATION_ONLY)), trainOptions);
  trainingMs += performance.now() - trainStart;
  for (const source of unfolded) thresholds[source] = model.threshold;
  extractWith(model, pages.filter((page) => unfolded.includes(page.source)), heldOutTexts);
}
const shippedTexts = new Map<string, string>();
extractWith(seenModel, pages, shippedTexts);

const today = scoreBySource(pages, todayTexts, order);
const refScores = refs.map((ref) => scoreBySource(pages, ref.texts, order));
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
const onlyNote = Object.entries(EVALUATION_ONLY).filter(([only]) => order.includes(only)).map(([only, fold]) => (fold ? `${only} is never trained on and is held out with ${fold}` : `${only} is never trained on: its column is a model trained on every training source`));
console.log(`leave-one-source-out F1 (the model scoring a source was trained on the other sources only${onlyNote.length ? `; ${onlyNote.join("; ")}` : ""})`);
if (refs.length > 0) console.log(`${refs.map((ref) => `ref ${ref.name}`).join(", ")} (filter off, same run) beside today (this tree, filter off):`);
const refHeads = refs.map((ref) => `${`ref ${ref.name}`.padEnd(28)}  `).join("");
console.log(`${"source".padEnd(18)} ${"pages".padStart(5)}  ${refHeads}${"today (filter off)".padEnd(28)}  ${"held out (filter on)".padEnd(28)}  ${"delta".padStart(7)}  thr   | ${modelFile ? modelFile : "shipped model"} (seen)`);
const rows: Record<string, unknown>[] = [];
const printRow = (source: string, before: SourceScore, refCells: SourceScore[], after: SourceScore, seen: SourceScore, threshold: string) => {
  const delta = after.f1 - before.f1;
  const refCell = refCells.map((score) => `${cell(score).padEnd(28)}  `).join("");
  console.log(`${source.padEnd(18)} ${String(before.pages).padStart(5)}  ${refCell}${cell(before).padEnd(28)}  ${cell(after).padEnd(28)}  ${(delta >= 0 ? "+" : "") + delta.toFixed(4)}  ${threshold.padEnd(4)}  | ${cell(seen)}`);
};
for (const [i, source] of order.entries()) {
  const before = today[i] as SourceScore;
  const after = heldOut[i] as SourceScore;
  const seen = shipped[i] as SourceScore;
  printRow(source, before, refScores.map((scores) => scores[i] as SourceScore), after, seen, (thresholds[source] ?? 0).toFixed(2));
  rows.push({ source, pages: before.pages, today: before, heldOut: after, shipped: seen, threshold: thresholds[source], refs: Object.fromEntries(refs.map((ref, r) => [ref.name, refScores[r]?.[i]])) });
}
const groups = groupedPages(pages);
for (const group of groups.order) {
  const [before, after, seen] = [todayTexts, heldOutTexts, shippedTexts].map((texts) => scoreBySource(groups.pages, texts, [group])[0] as SourceScore) as [SourceScore, SourceScore, SourceScore];
  printRow(`  ${group}`, before, refs.map((ref) => scoreBySource(groups.pages, ref.texts, [group])[0] as SourceScore), after, seen, "");
  rows.push({ source: group, pages: before.pages, today: before, heldOut: after, shipped: seen });
}
const chaosPages = pages.filter((page) => page.source.startsWith("chaos-")).map((page) => ({ ...page, source: "chaos (both halves)" }));
if (chaosPages.length > 0) {
  const [before, after, seen] = [todayTexts, heldOutTexts, shippedTexts].map((texts) => scoreBySource(chaosPages, texts, ["chaos (both halves)"])[0] as SourceScore) as [SourceScore, SourceScore, SourceScore];
  printRow("chaos (both)", before, refs.map((ref) => scoreBySource(chaosPages, ref.texts, ["chaos (both halves)"])[0] as SourceScore), after, seen, "");
}
const wideToday = pooled(todayTexts);
const wideHeldOut = pooled(heldOutTexts);
const wideShipped = pooled(shippedTexts);
const wideRefs = refs.map((ref) => pooled(ref.texts));
printRow("wide pooled", wideToday, wideRefs, wideHeldOut, wideShipped, "");
const [devBefore, devAfter] = [scoreBySource(devPages, devToday, ["dev"])[0], scoreBySource(devPages, devShipped, ["dev"])[0]] as [SourceScore, SourceScore];
const devRefs = refs.map((ref) => scoreBySource(devPages, ref.devTexts, ["dev"])[0] as SourceScore);
console.log(`${"dev (150, unseen by training)".padEnd(30)} ${refs.map((ref, r) => `ref ${ref.name} ${cell(devRefs[r] as SourceScore)}   `).join("")}today ${cell(devBefore)}   ${modelFile ? modelFile : "shipped model"} ${cell(devAfter)}`);
const worse = order.filter((source, i) => VETO_SOURCES.includes(source) && (heldOut[i] as SourceScore).f1 < (today[i] as SourceScore).f1);
const measured = order.filter((source) => !VETO_SOURCES.includes(source)).map((source) => {
  const i = order.indexOf(source);
  return `${source} ${f((heldOut[i] as SourceScore).f1 - (today[i] as SourceScore).f1)}`;
});
for (const [r, ref] of refs.entries()) {
  const belowRef = order.filter((_, i) => (today[i] as SourceScore).f1 < (refScores[r]?.[i] as SourceScore).f1);
  console.log(`RESULT_REF ref=${ref.name} today_below_ref=${belowRef.length}${belowRef.length ? ` (${belowRef.join(",")})` : ""} wide_pooled_ref=${f((wideRefs[r] as SourceScore).f1)} dev_ref=${f((devRefs[r] as SourceScore).f1)}`);
}
if (refs.length > 0) {
  // As shipped: each revision's default extraction beside this tree's shipped model, the before and after a caller sees.
  console.log(`as shipped: ${refs.map((ref) => `ref ${ref.name} (its default)`).join(", ")} beside this tree's ${modelFile ? modelFile : "shipped model"}, same run:`);
  const shippedRefScores = refs.map((ref) => scoreBySource(pages, ref.shippedTexts, order));
  const shippedRow = (source: string, refCells: SourceScore[], seen: SourceScore) =>
    console.log(`${source.padEnd(18)} ${String(seen.pages).padStart(5)}  ${refCells.map((score) => `${cell(score).padEnd(28)}  `).join("")}${cell(seen).padEnd(28)}  ${refCells.map((score) => `${seen.f1 - score.f1 >= 0 ? "+" : ""}${(seen.f1 - score.f1).toFixed(4)}`).join(" ")}`);
  for (const [i, source] of order.entries()) shippedRow(source, shippedRefScores.map((scores) => scores[i] as SourceScore), shipped[i] as SourceScore);
  for (const group of groups.order) shippedRow(`  ${group}`, refs.map((ref) => scoreBySource(groups.pages, ref.shippedTexts, [group])[0] as SourceScore), scoreBySource(groups.pages, shippedTexts, [group])[0] as SourceScore);
  if (chaosPages.length > 0) shippedRow("chaos (both)", refs.map((ref) => scoreBySource(chaosPages, ref.shippedTexts, ["chaos (both halves)"])[0] as SourceScore), scoreBySource(chaosPages, shippedTexts, ["chaos (both halves)"])[0] as SourceScore);
  shippedRow("wide pooled", refs.map((ref) => pooled(ref.shippedTexts)), wideShipped);
  shippedRow("dev", refs.map((ref) => scoreBySource(devPages, ref.devShippedTexts, ["dev"])[0] as SourceScore), devAfter);
  for (const [r, ref] of refs.entries()) {
    const below = order.filter((_, i) => (shipped[i] as SourceScore).f1 < (shippedRefScores[r]?.[i] as SourceScore).f1);
    console.log(`RESULT_SHIPPED_REF ref=${ref.name} shipped_below_ref_shipped=${below.length}${below.length ? ` (${below.join(",")})` : ""}`);
  }
}
console.log(`RESULT sources=${order.length} held_out_down=${worse.length}${worse.length ? ` (${worse.join(",")})` : ""} of ${order.filter((source) => VETO_SOURCES.includes(source)).join(",")}; measured, not a veto: ${measured.join(", ")} wide_pooled_today=${f(wideToday.f1)} wide_pooled_held_out=${f(wideHeldOut.f1)} wide_pooled_shipped=${f(wideShipped.f1)} dev_today=${f(devBefore.f1)} dev_shipped=${f(devAfter.f1)}`);
const json = option("json", "");
if (json) writeFileSync(json, JSON.stringify({ rows, wide: { today: wideToday, heldOut: wideHeldOut, shipped: wideShipped }, dev: { today: devBefore, shipped: devAfter } }, null, 1));
