/**
 * Page by page, what the shipped model changes against another model file on a harness-format set (the dev set by
 * default): each page the two extract differently, with its F1 under each (the shared scorer's shingles), and the
 * lines only one of them keeps. The dev set's side of a model change (docs/extraction-model.md, eighth try).
 *
 *   node_modules/.bin/bun scripts/block-model/model-pages.ts --model FILE [--data DIR]
 *   e.g. --model <(git show e7dd39c:src/web/extract/block-model.json): the previous model beside the shipped one
 */
import { readFileSync } from "node:fs";
import { modelJudge, type BlockModel } from "../../src/web/extract/block-filter.ts";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { DEV_SET_DIR, option } from "../bench/dev-set.ts";
import { loadTextSet, metricsFrom, shingleMatch } from "../bench/extraction-sources.ts";

const modelFile = option("model", "");
if (!modelFile) throw new Error("--model FILE: the model to set beside the shipped one");
const other = modelJudge(JSON.parse(readFileSync(modelFile, "utf8")) as BlockModel);
const pages = loadTextSet(option("data", DEV_SET_DIR));
const f1 = (truth: string, text: string) => metricsFrom([shingleMatch(truth, text)]).f1;
let differ = 0;
for (const page of pages) {
  if (page.truth.kind !== "text") continue;
  const shipped = extractHtmlSync({ html: page.html, url: page.url, markdown: false }).text;
  const theirs = extractHtmlSync({ html: page.html, url: page.url, markdown: false, blockJudge: other }).text;
  if (shipped === theirs) continue;
  differ++;
  console.log(`${page.id}  ${modelFile} ${f1(page.truth.text, theirs).toFixed(4)}  shipped ${f1(page.truth.text, shipped).toFixed(4)}`);
  const shippedLines = new Set(shipped.split("\n"));
  const theirLines = new Set(theirs.split("\n"));
  for (const line of theirLines) if (line.trim() && !shippedLines.has(line)) console.log(`    only ${modelFile} keeps: ${JSON.stringify(line.slice(0, 120))}`);
  for (const line of shippedLines) if (line.trim() && !theirLines.has(line)) console.log(`    only the shipped model keeps: ${JSON.stringify(line.slice(0, 120))}`);
}
console.log(`${pages.length} pages; ${differ} extract differently`);
