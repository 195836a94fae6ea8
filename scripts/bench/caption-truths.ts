/**
 * How each public source's truth treats pictures' captions (issue 44, eleventh try; src/web/extract/content-captions.ts):
 * on every page, the captions isPictureCaption finds inside the article's body (an ancestor within four levels holds
 * three paragraphs of 80 characters or more), 30 characters or longer, and whether the source's truth holds them. A
 * text truth holds one when it holds its words; a snippet truth when one of its "with" snippets lies in it, lacks it
 * when a "without" snippet does, else says nothing. Each kind apart (content-captions.ts CaptionMark): marked by HTML (a
 * <figcaption>, removed on every page) and named by a class or id (removed only on pages stating their article in
 * JSON-LD, content-declared.ts gate "json-ld"), the named ones also on those pages alone.
 *
 *   node_modules/.bin/bun scripts/bench/caption-truths.ts [--lines SOURCE]
 * --lines SOURCE: the captions of that source, page by page (never of chaos-unread or big9, which stay unread).
 * The sources are read from the folders scripts/bench/extraction-loso.ts reads (recorded-cache.ts defaultSourceDirs).
 */
import { pictureCaption } from "../../src/web/extract/content-captions.ts";
import { articleDeclarations, passesPageGate } from "../../src/web/extract/content-declared.ts";
import { readJsonLd } from "../../src/web/extract/content-structured.ts";
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { comparableText } from "../../src/web/extract/content-stated.ts";
import { closestNamed, parentElementOf, selectAllIn, textOf, type Element } from "../../src/web/extract/dom.ts";
import { defaultSourceDirs } from "../block-model/recorded-cache.ts";
import { option } from "./dev-set.ts";
import { loadSources, refuseUnread, sourceOrder, truthHoldsLine, WIDE_SET_DIR } from "./extraction-sources.ts";

const lines = option("lines", "");
refuseUnread(lines);

/** The counts the rule reads (extraction takes them from its walk of the page): characters of text and pictures. */
const countsOf = {
  get: (element: Element) => ({ chars: textOf(element).replace(/\s+/g, " ").trim().length, images: selectAllIn(element, "img").length }),
};

function insideFigcaption(element: Element): boolean {
  const parent = parentElementOf(element);
  return parent !== null && closestNamed(parent, "figcaption") !== null;
}

/** Whether an ancestor of `element` within four levels holds three paragraphs of 80 characters or more. */
function inArticleBody(element: Element): boolean {
  let at = parentElementOf(element);
  for (let level = 0; at !== null && level < 4; level++, at = parentElementOf(at)) {
    if (selectAllIn(at, "p").filter((p) => textOf(p).trim().length >= 80).length >= 3) return true;
  }
  return false;
}

const pages = loadSources(defaultSourceDirs(option("wide", WIDE_SET_DIR)));
type Row = { found: number; holds: number; lacks: number; silent: number };
const COLUMNS = ["marked (figcaption)", "named", "named, JSON-LD pages"] as const;
const counts = new Map<string, { pages: number; rows: Row[] }>();
for (const page of pages) {
  const tallies = counts.get(page.source) ?? { pages: 0, rows: COLUMNS.map(() => ({ found: 0, holds: 0, lacks: 0, silent: 0 })) };
  counts.set(page.source, tallies);
  tallies.pages++;
  const parsed = parsePage(cutUnreadMarkup(page.html));
  const inJsonLd = passesPageGate("json-ld", articleDeclarations(parsed.head, readJsonLd(page.html), page.html));
  const counted = new Set<Element>();
  for (const element of selectAllIn(parsed.body, "figcaption,[class*=aption],[id*=aption]")) {
    const text = textOf(element).replace(/\s+/g, " ").trim();
    const mark = comparableText(text).length >= 30 ? pictureCaption(element, countsOf, insideFigcaption(element)) : undefined;
    if (!mark || !inArticleBody(element)) continue;
    let within = false;
    for (let at = parentElementOf(element); at !== null && !within; at = parentElementOf(at)) within = counted.has(at);
    if (within) continue;
    counted.add(element);
    const holds = truthHoldsLine(page.truth, text, 60);
    const columns = mark === "marked" ? [0] : inJsonLd ? [1, 2] : [1];
    for (const column of columns) {
      const row = tallies.rows[column] as Row;
      row.found++;
      if (holds === true) row.holds++;
      else if (holds === false) row.lacks++;
      else row.silent++;
    }
    if (page.source === lines) console.log(`${page.id}\t${mark}${inJsonLd ? " json-ld" : ""}\t${holds === undefined ? "no snippet" : holds ? "holds" : "lacks"}\t${JSON.stringify(text.slice(0, 100))}`);
  }
}
const cell = (row: Row) => `${row.found}: ${row.holds} / ${row.lacks}${row.silent > 0 ? ` (${row.silent} silent)` : ""}`.padEnd(26);
console.log("captions found: truth holds / lacks (silent: a snippet truth with no snippet in it)");
console.log(`${"source".padEnd(18)} ${"pages".padStart(6)}  ${COLUMNS.map((name) => name.padEnd(26)).join("")}`);
for (const source of sourceOrder(pages)) {
  const tallies = counts.get(source);
  if (tallies) console.log(`${source.padEnd(18)} ${String(tallies.pages).padStart(6)}  ${tallies.rows.map(cell).join("")}`);
}
