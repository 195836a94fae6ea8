/**
 * The gallery slide counters left in extracted text (issue 44, eleventh try; content-lines.ts isSlideCounter): per
 * source, the lines of today's text (as shipped) that are only a counter ("1 of 5", "2 / 62"), and for a text truth
 * how many of them it holds as a line of its own; with --ref REV, the same for that revision's text beside it, in the
 * same run (reference-tree.ts), to show the lines the rule took.
 *
 *   node_modules/.bin/bun scripts/bench/slide-counters.ts [--ref REV]
 * The sources are read from the folders scripts/bench/extraction-loso.ts reads (recorded-cache.ts defaultSourceDirs).
 */
import { isSlideCounter } from "../../src/web/extract/content-lines.ts";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { defaultSourceDirs } from "../block-model/recorded-cache.ts";
import { option } from "./dev-set.ts";
import { loadSources, sourceOrder, WIDE_SET_DIR, type SourcePage } from "./extraction-sources.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";

type Extract = (input: { html: string; url: string; markdown: boolean }) => { text: string };
type Row = { lines: number; holds: number; lacks: number };

const pages = loadSources(defaultSourceDirs(option("wide", WIDE_SET_DIR)));

/** Per source, the counter lines of `extract`'s text and how the text truths treat them. */
function countCounters(extract: Extract, of: readonly SourcePage[]): Map<string, Row> {
  const counts = new Map<string, Row>();
  for (const page of of) {
    const row = counts.get(page.source) ?? { lines: 0, holds: 0, lacks: 0 };
    counts.set(page.source, row);
    let text = "";
    try {
      text = extract({ html: page.html, url: page.url, markdown: false }).text;
    } catch {
      continue;
    }
    const truthLines = page.truth.kind === "text" ? new Set(page.truth.text.split("\n").map((line) => line.trim())) : undefined;
    for (const line of text.split("\n")) {
      if (!isSlideCounter(line)) continue;
      row.lines++;
      if (truthLines?.has(line.trim())) row.holds++;
      else if (truthLines) row.lacks++;
    }
  }
  return counts;
}

const ref = option("ref", "");
const columns: [string, Map<string, Row>][] = [];
if (ref) {
  const reference = createReferenceTree(ref);
  try {
    const { extractHtmlSync: extractRef } = (await import(moduleIn(reference.dir, "src/web/extract/extract.ts"))) as { extractHtmlSync: Extract };
    columns.push([`ref ${reference.name}`, countCounters(extractRef, pages)]);
  } finally {
    reference.remove();
  }
}
columns.push(["today", countCounters(extractHtmlSync, pages)]);
const cell = (row: Row | undefined) => `${row?.lines ?? 0}: ${row?.holds ?? 0} / ${row?.lacks ?? 0}`.padEnd(22);
console.log("counter lines: a text truth holds / lacks (snippet truths are not judged)");
console.log(`${"source".padEnd(18)} ${columns.map(([name]) => name.padEnd(22)).join("")}`);
for (const source of sourceOrder(pages)) console.log(`${source.padEnd(18)} ${columns.map(([, counts]) => cell(counts.get(source))).join("")}`);
