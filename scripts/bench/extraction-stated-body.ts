/**
 * The stated-article trim (src/web/extract/content-stated-body.ts, issue 44's fifth try) judged source by source: every
 * page of every public source and the dev set extracted with the trim off and on in the same run (and, with --ref REV,
 * with that revision's extraction), F1 with precision and recall per source, on all pages and on the pages that state
 * an articleBody only; how many pages the trim changed per source, and page by page the wins and losses. Last, the
 * cost: this thread's CPU per page with the trim off and on, taking turns page by page over the pages stating an
 * articleBody (the only ones it reads more of), `--rounds` times (3).
 *
 *   node_modules/.bin/bun scripts/bench/extraction-stated-body.ts [--news DIR] [--trafeval DIR] [--trafeval-current DIR]
 *     [--ir-research DIR] [--wide DIR] [--dev DIR] [--ref REV] [--pages N] [--only-stating]
 *   (--pages: how many changed pages to list, default 40; --only-stating: see below)
 */
import { join } from "node:path";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { readArticleBodies, readJsonLd } from "../../src/web/extract/content-structured.ts";
import { DEV_SET_DIR, median, option } from "./dev-set.ts";
import { threadCpuMs } from "./extraction-thread-clock.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";
import { groupedPages, loadSources, loadTextSet, scoreBySource, sourceOrder, type SourcePage, type SourceScore } from "./extraction-sources.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const allPages: SourcePage[] = [
  ...loadSources({
    wide: option("wide", join(DEV_SET_DIR, "..", "wide")),
    news: option("news", join(repoRoot, ".tmp/extraction/news")),
    trafeval: option("trafeval", join(repoRoot, ".tmp/extraction/trafeval")),
    trafevalCurrent: option("trafeval-current", join(repoRoot, ".tmp/extraction/trafeval-2026")),
    irResearch: option("ir-research", join(repoRoot, ".tmp/extraction/ir-research")),
  }),
  ...loadTextSet(option("dev", DEV_SET_DIR), () => "dev"),
];
/** --only-stating: only the pages stating an articleBody (the trim changes no other page; a faster loop while tuning). */
const onlyStating = process.argv.includes("--only-stating");
const statesBody = (page: SourcePage) => readArticleBodies(readJsonLd(page.html)).some((body) => body.trim() !== "");
const pages = onlyStating ? allPages.filter(statesBody) : allPages;
const order = sourceOrder(pages);

type Extract = (input: { html: string; url: string; markdown: boolean; statedBodyTrim?: boolean; blockJudge?: null }) => { text: string };
function extractAll(extract: Extract, trim: boolean): { texts: Map<string, string>; ms: number } {
  const texts = new Map<string, string>();
  const started = performance.now();
  for (const page of pages) {
    try {
      texts.set(page.id, extract({ html: page.html, url: page.url, markdown: false, statedBodyTrim: trim, blockJudge: null }).text);
    } catch {
      texts.set(page.id, "");
    }
  }
  return { texts, ms: performance.now() - started };
}

const refRevision = option("ref", "");
let ref: { name: string; texts: Map<string, string> } | undefined;
if (refRevision) {
  const tree = createReferenceTree(refRevision);
  try {
    const { extractHtmlSync: extractRef } = (await import(moduleIn(tree.dir, "src/web/extract/extract.ts"))) as { extractHtmlSync: Extract };
    ref = { name: tree.name, texts: extractAll(extractRef, false).texts };
  } finally {
    tree.remove();
  }
}
const off = extractAll(extractHtmlSync, false);
const on = extractAll(extractHtmlSync, true);
const stating = new Set(pages.filter(statesBody).map((page) => page.id));

const cell = (score: SourceScore) => `${score.f1.toFixed(4)} (P ${score.precision.toFixed(3)} R ${score.recall.toFixed(3)})`;
const delta = (after: number, before: number) => `${after - before >= 0 ? "+" : ""}${(after - before).toFixed(4)}`;
function table(of: readonly SourcePage[], title: string): void {
  console.log(`\n${title}`);
  console.log(`${"source".padEnd(18)} ${"pages".padStart(5)} ${"fired".padStart(5)}  ${ref ? `${`ref ${ref.name}`.padEnd(28)}  ` : ""}${"trim off".padEnd(28)}  ${"trim on".padEnd(28)}  delta`);
  const wide = ["dragnet", "cleaneval", "portal", "readability"];
  const pooled = of.map((page) => (wide.includes(page.source) ? { ...page, source: "wide pooled" } : page));
  const groups = groupedPages(of);
  for (const [set, sources] of [[of, order], [groups.pages, groups.order], [pooled, ["wide pooled"]]] as const) {
    for (const source of sources) {
      const own = set.filter((page) => page.source === source);
      if (own.length === 0) continue;
      const [before, after] = [off.texts, on.texts].map((texts) => scoreBySource(own, texts, [source])[0] as SourceScore) as [SourceScore, SourceScore];
      const fired = own.filter((page) => off.texts.get(page.id) !== on.texts.get(page.id)).length;
      const refCell = ref ? `${cell(scoreBySource(own, ref.texts, [source])[0] as SourceScore).padEnd(28)}  ` : "";
      console.log(`${source.padEnd(18)} ${String(own.length).padStart(5)} ${String(fired).padStart(5)}  ${refCell}${cell(before).padEnd(28)}  ${cell(after).padEnd(28)}  ${delta(after.f1, before.f1)}`);
    }
  }
}

console.log(`${pages.length} pages; extraction ${(off.ms / 1000).toFixed(1)} s off, ${(on.ms / 1000).toFixed(1)} s on (${(on.ms / off.ms).toFixed(3)}×)`);
if (ref) {
  const differing = pages.filter((page) => ref.texts.get(page.id) !== off.texts.get(page.id)).map((page) => page.id);
  console.log(`ref ${ref.name}: ${differing.length} pages extract differently from this tree with the trim off${differing.length ? ` (${differing.slice(0, 20).join(", ")})` : ""}`);
}
table(pages, "all pages");
table(pages.filter((page) => stating.has(page.id)), "pages stating an articleBody");

const changed = pages
  .filter((page) => off.texts.get(page.id) !== on.texts.get(page.id))
  .map((page) => {
    const [before, after] = [off.texts, on.texts].map((texts) => scoreBySource([page], texts, [page.source])[0] as SourceScore) as [SourceScore, SourceScore];
    return { page, before, after };
  })
  .sort((a, b) => a.after.f1 - a.before.f1 - (b.after.f1 - b.before.f1));
const limit = Number(option("pages", "40"));
console.log(`\nchanged pages: ${changed.length}; ${changed.filter((c) => c.after.f1 < c.before.f1).length} lose, ${changed.filter((c) => c.after.f1 > c.before.f1).length} win (page F1)`);
for (const { page, before, after } of [...changed.slice(0, limit / 2), ...changed.slice(-limit / 2)].filter((c, i, all) => all.indexOf(c) === i)) {
  console.log(`${delta(after.f1, before.f1)}  ${page.source.padEnd(16)} ${page.id.padEnd(28)} ${cell(before)} -> ${cell(after)}`);
}

/** This thread's CPU for one extraction of each stating page, the arms taking turns page by page; the median page's ratio. */
const statingPages = pages.filter((page) => stating.has(page.id));
const cpu = { off: [] as number[], on: [] as number[] };
for (let round = 0; round < Number(option("rounds", "3")); round++) {
  for (const page of statingPages) {
    for (const trim of round % 2 === 0 ? [false, true] : [true, false]) {
      const started = threadCpuMs();
      extractHtmlSync({ html: page.html, url: page.url, markdown: false, statedBodyTrim: trim, blockJudge: null });
      (trim ? cpu.on : cpu.off).push(threadCpuMs() - started);
    }
  }
}
const [offMs, onMs] = [median(cpu.off), median(cpu.on)];
const ratios = cpu.on.map((ms, i) => ms / (cpu.off[i] as number));
console.log(`\nCPU per page (this thread), ${statingPages.length} pages stating an articleBody: median ${offMs.toFixed(2)} ms off, ${onMs.toFixed(2)} ms on (${(onMs / offMs).toFixed(3)}×); median page ratio ${median(ratios).toFixed(3)}×; total ${(cpu.on.reduce((a, b) => a + b, 0) / cpu.off.reduce((a, b) => a + b, 0)).toFixed(3)}×`);
