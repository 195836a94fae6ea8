/**
 * How many pages of each public source (and of the dev set) declare themselves an article
 * (src/web/extract/content-declared.ts: og:type article, article:published_time, a JSON-LD Article-family @type,
 * microdata itemtype), and how many "state" it (content-declared.ts PageGate: any way but og:type alone), by way of declaring. The learned block filter's `declared` page gate applies only there.
 *
 *   node_modules/.bin/bun scripts/bench/declared-articles.ts [--news DIR] [--trafeval DIR] [--trafeval-current DIR] [--ir-research DIR] [--wide DIR] [--dev DIR] [--scores]
 * --scores: also today's extraction (the default path) scored on each source's stated, declared-only (og:type
 * alone) and undeclared pages, to see where the precision is lost.
 */
import { join } from "node:path";
import { articleDeclarations, passesPageGate, type ArticleDeclaration } from "../../src/web/extract/content-declared.ts";
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { readJsonLd } from "../../src/web/extract/content-structured.ts";
import { DEV_SET_DIR, option } from "./dev-set.ts";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { loadSources, loadTextSet, scoreBySource, sourceOrder, WIDE_SET_DIR, type SourceScore } from "./extraction-sources.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const pages = [
  ...loadSources({
    wide: option("wide", WIDE_SET_DIR),
    news: option("news", join(repoRoot, ".tmp/extraction/news")),
    trafeval: option("trafeval", join(repoRoot, ".tmp/extraction/trafeval")),
    trafevalCurrent: option("trafeval-current", join(repoRoot, ".tmp/extraction/trafeval-2026")),
    irResearch: option("ir-research", join(repoRoot, ".tmp/extraction/ir-research")),
  }),
  ...loadTextSet(option("dev", DEV_SET_DIR)),
];
const WAYS: ArticleDeclaration[] = ["og-type", "published-time", "json-ld", "microdata"];
const pct = (part: number, all: number) => `${part} (${((100 * part) / all).toFixed(0)} %)`;
console.log(`${"source".padEnd(18)} ${"pages".padStart(5)}  ${"declared".padEnd(10)}  ${"stated".padEnd(10)}  ${WAYS.map((way) => way.padEnd(16)).join("")}`);
const declarations = new Map(pages.map((page) => [page.id, articleDeclarations(parsePage(cutUnreadMarkup(page.html)).head, readJsonLd(page.html), page.html)]));
for (const source of sourceOrder(pages)) {
  const own = pages.filter((page) => page.source === source);
  const found = own.map((page) => declarations.get(page.id) as ArticleDeclaration[]);
  const declared = found.filter((ways) => passesPageGate("declared", ways)).length;
  const stated = found.filter((ways) => passesPageGate("stated", ways)).length;
  const byWay = WAYS.map((way) => pct(found.filter((ways) => ways.includes(way)).length, own.length).padEnd(16));
  console.log(`${source.padEnd(18)} ${String(own.length).padStart(5)}  ${pct(declared, own.length).padEnd(10)}  ${pct(stated, own.length).padEnd(10)}  ${byWay.join("")}`);
}

if (process.argv.includes("--scores")) {
  const texts = new Map(pages.map((page) => {
    try {
      return [page.id, extractHtmlSync({ html: page.html, url: page.url, markdown: false }).text];
    } catch {
      return [page.id, ""];
    }
  }));
  const group = (ways: ArticleDeclaration[]) => (passesPageGate("stated", ways) ? "stated" : passesPageGate("declared", ways) ? "og:type only" : "undeclared");
  const cell = (score: SourceScore | undefined) => (score && score.pages > 0 ? `${score.pages} ${score.f1.toFixed(4)} (P ${score.precision.toFixed(3)} R ${score.recall.toFixed(3)})` : "-").padEnd(34);
  console.log(`\ntoday's extraction by page group (pages F1 (P R))\n${"source".padEnd(18)} ${"stated".padEnd(34)} ${"og:type only".padEnd(34)} undeclared`);
  for (const source of sourceOrder(pages)) {
    const own = pages.filter((page) => page.source === source);
    const scores = ["stated", "og:type only", "undeclared"].map((name) => {
      const members = own.filter((page) => group(declarations.get(page.id) as ArticleDeclaration[]) === name);
      return members.length > 0 ? scoreBySource(members, texts, [source])[0] : undefined;
    });
    console.log(`${source.padEnd(18)} ${scores.map(cell).join(" ")}`);
  }
}
