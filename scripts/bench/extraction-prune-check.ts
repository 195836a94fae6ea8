/**
 * Checks the first try's pruning on every dev page against happy-dom (see
 * src/web/extract/content-prune-check.ts) and prints how many nodes the first parse is spared. Run it
 * after any happy-dom upgrade: the pruning models that parser's tree rules.
 *
 *   node_modules/.bin/bun scripts/bench/extraction-prune-check.ts [--data DIR]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Node } from "happy-dom";
import { minimizeHtml, parseHtmlDocument } from "../../src/web/extract/content-parse.ts";
import { comparePrunedParse } from "../../src/web/extract/content-prune-check.ts";
import { pruneDroppedSubtrees } from "../../src/web/extract/content-prune.ts";

const at = process.argv.indexOf("--data");
const dataDir = at > 0 ? (process.argv[at + 1] as string) : "/work/shared/bench/extraction/data";
const files = readdirSync(join(dataDir, "html")).filter((f) => f.endsWith(".html.gz")).sort();

function countNodes(node: Node): number {
  let count = 1;
  for (const child of Array.from(node.childNodes)) count += countNodes(child as Node);
  return count;
}

let failed = 0;
let wholeNodes = 0;
let prunedNodes = 0;
let secondTryNodes = 0;
for (const file of files) {
  const whole = minimizeHtml(gunzipSync(readFileSync(join(dataDir, "html", file))).toString("utf8"));
  const pruned = pruneDroppedSubtrees(whole);
  const problems = comparePrunedParse(whole, pruned);
  // The second try's copy (names ignored) must agree with the whole page too.
  const secondTry = pruneDroppedSubtrees(whole, { chromeNamed: false });
  problems.push(...comparePrunedParse(whole, secondTry, { chromeNamed: false }).map((p) => `names ignored: ${p}`));
  if (problems.length > 0) {
    failed++;
    console.log(`${file}: ${problems.join("; ")}`);
  }
  wholeNodes += countNodes(parseHtmlDocument(whole).documentElement as unknown as Node);
  prunedNodes += countNodes(parseHtmlDocument(pruned).documentElement as unknown as Node);
  secondTryNodes += countNodes(parseHtmlDocument(secondTry).documentElement as unknown as Node);
}
console.log(
  `RESULT pages=${files.length} mismatched=${failed} nodes_whole=${wholeNodes} nodes_first_try=${prunedNodes} ratio=${(prunedNodes / wholeNodes).toFixed(3)} nodes_second_try=${secondTryNodes} ratio=${(secondTryNodes / wholeNodes).toFixed(3)}`,
);
