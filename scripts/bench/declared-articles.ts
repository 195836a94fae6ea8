/**
 * How many pages of each public source (and of the dev set) declare themselves an article
 * (src/web/extract/content-declared.ts: og:type article, article:published_time, a JSON-LD Article-family @type,
 * microdata itemtype), and how many "state" it (content-declared.ts PageGate: any way but og:type alone), by way of declaring. The learned block filter's `declared` page gate applies only there.
 *
 *   node_modules/.bin/bun scripts/bench/declared-articles.ts [--news DIR] [--trafeval DIR] [--trafeval-current DIR] [--wide DIR] [--dev DIR]
 */
import { join } from "node:path";
import { articleDeclarations, passesPageGate, type ArticleDeclaration } from "../../src/web/extract/content-declared.ts";
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { readJsonLd } from "../../src/web/extract/content-structured.ts";
import { DEV_SET_DIR, option } from "./dev-set.ts";
import { loadSources, loadTextSet, sourceOrder, WIDE_SET_DIR } from "./extraction-sources.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const pages = [
  ...loadSources({
    wide: option("wide", WIDE_SET_DIR),
    news: option("news", join(repoRoot, ".tmp/extraction/news")),
    trafeval: option("trafeval", join(repoRoot, ".tmp/extraction/trafeval")),
    trafevalCurrent: option("trafeval-current", join(repoRoot, ".tmp/extraction/trafeval-2026")),
  }),
  ...loadTextSet(option("dev", DEV_SET_DIR)),
];
const WAYS: ArticleDeclaration[] = ["og-type", "published-time", "json-ld", "microdata"];
const pct = (part: number, all: number) => `${part} (${((100 * part) / all).toFixed(0)} %)`;
console.log(`${"source".padEnd(18)} ${"pages".padStart(5)}  ${"declared".padEnd(10)}  ${"stated".padEnd(10)}  ${WAYS.map((way) => way.padEnd(16)).join("")}`);
for (const source of sourceOrder(pages)) {
  const own = pages.filter((page) => page.source === source);
  const found = own.map((page) => articleDeclarations(parsePage(cutUnreadMarkup(page.html)).head, readJsonLd(page.html), page.html));
  const declared = found.filter((ways) => passesPageGate("declared", ways)).length;
  const stated = found.filter((ways) => passesPageGate("stated", ways)).length;
  const byWay = WAYS.map((way) => pct(found.filter((ways) => ways.includes(way)).length, own.length).padEnd(16));
  console.log(`${source.padEnd(18)} ${String(own.length).padStart(5)}  ${pct(declared, own.length).padEnd(10)}  ${pct(stated, own.length).padEnd(10)}  ${byWay.join("")}`);
}
