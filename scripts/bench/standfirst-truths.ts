/**
 * How each public source's truth treats the standfirst (issue 44, tenth try; src/web/extract/content-standfirst.ts):
 * on every page, the standfirst extraction finds (the block close after the headline whose text is the page's meta
 * description), and whether the source's truth holds it. A text truth holds it when it holds its words; a snippet
 * truth when one of its "with" snippets lies in it, lacks it when a "without" snippet does, else says nothing.
 *
 *   node_modules/.bin/bun scripts/bench/standfirst-truths.ts [--lines SOURCE]
 * --lines SOURCE: the standfirsts of that source, page by page (never of chaos-unread or big9, which stay unread).
 * The sources are read from the folders scripts/bench/extraction-loso.ts reads (recorded-cache.ts defaultSourceDirs).
 */
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { readPageInfo } from "../../src/web/extract/content-head.ts";
import { findStandfirst } from "../../src/web/extract/content-standfirst.ts";
import { headlineOf } from "../../src/web/extract/content-title.ts";
import { textOf } from "../../src/web/extract/dom.ts";
import { defaultSourceDirs } from "../block-model/recorded-cache.ts";
import { option } from "./dev-set.ts";
import { loadSources, refuseUnread, sourceOrder, truthHoldsLine, WIDE_SET_DIR } from "./extraction-sources.ts";

const lines = option("lines", "");
refuseUnread(lines);

const pages = loadSources(defaultSourceDirs(option("wide", WIDE_SET_DIR)));
const counts = new Map<string, { pages: number; found: number; holds: number; lacks: number; silent: number }>();
for (const page of pages) {
  const row = counts.get(page.source) ?? { pages: 0, found: 0, holds: 0, lacks: 0, silent: 0 };
  counts.set(page.source, row);
  row.pages++;
  const parsed = parsePage(cutUnreadMarkup(page.html));
  const info = readPageInfo(parsed, page.url);
  const standfirst = findStandfirst(parsed.body, headlineOf(parsed.body, info.title), info.description);
  if (!standfirst) continue;
  row.found++;
  const holds = truthHoldsLine(page.truth, textOf(standfirst), 80);
  if (holds === true) row.holds++;
  else if (holds === false) row.lacks++;
  else row.silent++;
  if (page.source === lines) console.log(`${page.id}\t${holds === undefined ? "no snippet" : holds ? "holds" : "lacks"}\t${JSON.stringify(textOf(standfirst).replace(/\s+/g, " ").trim().slice(0, 100))}`);
}
console.log(`${"source".padEnd(18)} ${"pages".padStart(6)} ${"standfirsts".padStart(12)} ${"truth holds".padStart(12)} ${"lacks".padStart(6)} ${"no snippet".padStart(11)}`);
for (const source of sourceOrder(pages)) {
  const row = counts.get(source);
  if (row) console.log(`${source.padEnd(18)} ${String(row.pages).padStart(6)} ${String(row.found).padStart(12)} ${String(row.holds).padStart(12)} ${String(row.lacks).padStart(6)} ${String(row.silent).padStart(11)}`);
}
