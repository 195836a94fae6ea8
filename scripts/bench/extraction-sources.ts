/**
 * The public annotated extraction sets as sources for training the block model and judging it source by source:
 * the wide set's four (dragnet, cleaneval, portal, readability), L3S-GN1 news (unseen-set.ts --source news, both
 * halves) and trafilatura's 2022 snippet set (../shared/bench/extraction/trafeval/prepare.py --out DIR). Each page
 * carries its truth: a text (scored with the shared scorer's shingle F1) or "with"/"without" snippets (scored as
 * trafilatura's comparison.py did). The ir-research sets (ir-research-set.ts --out DIR: big9, 9 news sites in 2005-2017,
 * and chaos, 2017 pages of about 240 sites, split by site into chaos-read and chaos-unread) and readability (its truth is
 * Readability.js's output) are measured only unless a script trains on them on purpose. Never the
 * Zyte/scrapinghub article-extraction-benchmark pages, nor a set that includes them (issue 44). The pages are read from
 * their folders and never committed.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { comparableText } from "../../src/web/extract/content-stated.ts";
import { DEV_SET_DIR } from "./dev-set.ts";

export type TpFpFn = [number, number, number];
export type SnippetCounts = [tp: number, fn: number, fp: number, tn: number];
/** The shared harness's scorer (outside the repository, so loaded by path): shingle F1 as the wide set's by-source.ts scores it. */
const scorer = (await import(join(DEV_SET_DIR, "..", "score.ts"))) as {
  shingleMatch(truth: string, prediction: string): TpFpFn;
  metricsFrom(items: TpFpFn[]): { f1: number; precision: number; recall: number };
};
const { metricsFrom, shingleMatch } = scorer;
export { metricsFrom, shingleMatch };

export const WIDE_SET_DIR = join(DEV_SET_DIR, "..", "wide");

/** A text truth, or snippets (`collapse`: matched with whitespace collapsed on both sides, as trafilatura's current eval_common.py does). */
export type Truth = { kind: "text"; text: string } | { kind: "snippets"; with: string[]; without: string[]; collapse?: boolean };

export interface SourcePage {
  id: string;
  source: string;
  /** A part of the source reported on its own (big9's year), when its set names one. */
  group?: string;
  html: string;
  url: string;
  truth: Truth;
}

const gunzipText = (path: string) => gunzipSync(readFileSync(path)).toString("utf8");

/** Pages of a harness-format set (html/<id>.html.gz, ground-truth.json with a source per page); `rename` maps its source names. */
export function loadTextSet(dir: string, rename: (source: string) => string = (source) => source): SourcePage[] {
  const truth = JSON.parse(readFileSync(join(dir, "ground-truth.json"), "utf8")) as Record<string, { articleBody: string; source?: string; group?: string }>;
  return Object.entries(truth)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, entry]) => ({
      id,
      source: rename(entry.source ?? "dev"),
      ...(entry.group ? { group: entry.group } : {}),
      html: gunzipText(join(dir, "html", `${id}.html.gz`)),
      url: "https://example.com/",
      truth: { kind: "text", text: entry.articleBody },
    }));
}

/** trafilatura's snippet set as built by trafeval/prepare.py (data/pages.json, data/html/<id>.html.gz). */
export function loadSnippetSet(dir: string, source: string, collapse = false): SourcePage[] {
  const pages = JSON.parse(readFileSync(join(dir, "pages.json"), "utf8")) as { id: string; url: string; with: string[]; without: string[] }[];
  return pages.map((page) => ({
    id: `${source}-${page.id}`,
    source,
    html: gunzipText(join(dir, "html", `${page.id}.html.gz`)),
    url: page.url,
    truth: { kind: "snippets", with: page.with, without: page.without, collapse },
  }));
}

export interface SourceDirs {
  wide: string;
  /** unseen-set.ts --source news output; skipped when absent. */
  news?: string;
  /** trafeval prepare.py output; skipped when absent. */
  trafeval?: string;
  /** trafeval-current.py output (trafilatura's current set); skipped when absent. Measured, never trained on. */
  trafevalCurrent?: string;
  /** ir-research-set.ts output (sources big9 and chaos); skipped when absent. Measured, not trained on unless asked. */
  irResearch?: string;
}

/**
 * Sources measured only, unless a script is told to train on them (`evaluationOnlySources`): the ir-research sets,
 * and `readability`, whose truth is Readability.js's own expected output, not a human annotation (the wide set's
 * SOURCE.txt): reported beside the others, never trained on and never a veto (docs/extraction-model.md, seventh try).
 */
export const MEASURED_ONLY = ["readability", "big9", "chaos-read", "chaos-unread"];

/** Sources measured only and never read page by page (docs/extraction-model.md, seventh try): tools quote their figures only. */
export const UNREAD_SOURCES = ["big9", "chaos-unread"];

/** Throws when `source` is one that stays unread, for a tool about to show its pages. */
export function refuseUnread(source: string): void {
  if (UNREAD_SOURCES.includes(source)) throw new Error(`${source} stays unread: only its figures are quoted`);
}

/** The sources whose held-out figure decides (a human truth, or a measured-only set nothing was read off). */
export const VETO_SOURCES = ["dragnet", "cleaneval", "portal", "l3s-news", "trafilatura-2022", "trafilatura-2026", "big9", "chaos-unread"];

/** The site a saved page came from: its canonical link, og:url or "saved from url" comment; null when it names none. */
export function pageHost(html: string): string | null {
  const url =
    /<link[^>]+rel=["']canonical["'][^>]*href=["'](https?:\/\/[^"']+)/i.exec(html)?.[1] ??
    /<link[^>]+href=["'](https?:\/\/[^"']+)["'][^>]*rel=["']canonical/i.exec(html)?.[1] ??
    /property=["']og:url["'][^>]*content=["'](https?:\/\/[^"']+)/i.exec(html)?.[1] ??
    /saved from url=\(\d+\)(https?:\/\/[^\s>]+)/i.exec(html)?.[1];
  const host = url ? /^https?:\/\/([^/:?#]+)/i.exec(url)?.[1] : undefined;
  return host ? host.toLowerCase().replace(/^www\./, "") : null;
}

/**
 * chaos split by site into a half that may be read page by page (`chaos-read`) and one that stays unread
 * (`chaos-unread`), as unseen-set.ts splits its sets: sha256 of "chaos:" and the page's host (its id when it names
 * none), first byte even or odd. By host, so that no site's template is on both sides.
 */
export function chaosHalf(page: Pick<SourcePage, "id" | "html">): "chaos-read" | "chaos-unread" {
  const key = pageHost(page.html) ?? page.id;
  return (createHash("sha256").update(`chaos:${key}`).digest()[0] as number) % 2 === 0 ? "chaos-read" : "chaos-unread";
}

/**
 * Sources scored but never trained on, and the source whose fold also holds them out (trafilatura 2026: the 2022
 * pages, grown), or null: held out by every fold, judged with a model trained on every training source. `trained`:
 * measured-only sources to train on after all.
 */
export function evaluationOnlySources(trained: readonly string[] = []): Record<string, string | null> {
  const only: Record<string, string | null> = { "trafilatura-2026": "trafilatura-2022" };
  for (const source of MEASURED_ONLY) if (!trained.includes(source)) only[source] = null;
  return only;
}
export const EVALUATION_ONLY = evaluationOnlySources();

/** Every source found in `dirs`, pages in a stable order. */
export function loadSources(dirs: SourceDirs): SourcePage[] {
  const pages = loadTextSet(dirs.wide);
  if (dirs.news && existsSync(join(dirs.news, "ground-truth.json"))) pages.push(...loadTextSet(dirs.news, () => "l3s-news"));
  if (dirs.trafeval && existsSync(join(dirs.trafeval, "pages.json"))) pages.push(...loadSnippetSet(dirs.trafeval, "trafilatura-2022"));
  if (dirs.trafevalCurrent && existsSync(join(dirs.trafevalCurrent, "pages.json"))) pages.push(...loadSnippetSet(dirs.trafevalCurrent, "trafilatura-2026", true));
  if (dirs.irResearch && existsSync(join(dirs.irResearch, "ground-truth.json")))
    pages.push(...loadTextSet(dirs.irResearch).map((page) => (page.source === "chaos" ? { ...page, source: chaosHalf(page) } : page)));
  return pages;
}

/** Snippet counts of one page (comparison.py: a plain substring test on the extracted text). */
export function snippetCounts(truth: { with: string[]; without: string[]; collapse?: boolean }, extracted: string): SnippetCounts {
  const norm = (value: string) => (truth.collapse ? value.replace(/\s+/g, " ").trim() : value);
  const text = norm(extracted);
  let tp = 0, fn = 0, fp = 0, tn = 0;
  for (const snippet of truth.with) snippet !== "" && text.includes(norm(snippet)) ? tp++ : fn++;
  for (const snippet of truth.without) snippet !== "" && text.includes(norm(snippet)) ? fp++ : tn++;
  return [tp, fn, fp, tn];
}

export interface SourceScore {
  source: string;
  pages: number;
  f1: number;
  precision: number;
  recall: number;
}

/** F1, precision and recall of `texts` (by page id) over `pages`, one row per source, in `order`. */
export function scoreBySource(pages: readonly SourcePage[], texts: ReadonlyMap<string, string>, order: readonly string[]): SourceScore[] {
  return order.map((source) => {
    const own = pages.filter((page) => page.source === source);
    const shingled: TpFpFn[] = [];
    const snippets = [0, 0, 0, 0];
    for (const page of own) {
      const text = texts.get(page.id) ?? "";
      if (page.truth.kind === "text") shingled.push(shingleMatch(page.truth.text, text));
      else snippetCounts(page.truth, text).forEach((count, i) => (snippets[i] = (snippets[i] as number) + count));
    }
    if (shingled.length > 0) return { source, pages: own.length, ...metricsFrom(shingled) };
    return { source, pages: own.length, ...snippetMetrics(snippets as SnippetCounts) };
  });
}

/** F, precision and recall of summed snippet counts (comparison.py's calculate_scores). */
export function snippetMetrics([tp, fn, fp]: SnippetCounts): { f1: number; precision: number; recall: number } {
  return { f1: (2 * tp) / (2 * tp + fp + fn), precision: tp / (tp + fp), recall: tp / (tp + fn) };
}

/** Sources in a stable order: the wide set's first, then the others as found. */
export function sourceOrder(pages: readonly SourcePage[]): string[] {
  const preferred = ["dragnet", "cleaneval", "portal", "readability", "l3s-news", "trafilatura-2022", "trafilatura-2026", "big9", "chaos-read", "chaos-unread"];
  const found = [...new Set(pages.map((page) => page.source))];
  return [...preferred.filter((source) => found.includes(source)), ...found.filter((source) => !preferred.includes(source))];
}

/** The pages of sources with two groups or more, relabelled "<source> <group>", and those labels in order (big9's years). */
export function groupedPages(pages: readonly SourcePage[]): { pages: SourcePage[]; order: string[] } {
  const groupsOf = new Map<string, Set<string>>();
  for (const page of pages) if (page.group) groupsOf.set(page.source, (groupsOf.get(page.source) ?? new Set()).add(page.group));
  const grouped = pages.filter((page) => page.group && (groupsOf.get(page.source)?.size ?? 0) > 1).map((page) => ({ ...page, source: `${page.source} ${page.group}` }));
  return { pages: grouped, order: [...new Set(grouped.map((page) => page.source))].sort() };
}

/**
 * Whether `truth` holds a line of the page (`text`: a standfirst, a caption): a text truth when it holds the line's
 * first `prefixChars` letters and digits; a snippet truth when one of its "with" snippets lies in the line, lacks it
 * when a "without" snippet does, else undefined (it says nothing of the line).
 */
export function truthHoldsLine(truth: Truth, text: string, prefixChars: number): boolean | undefined {
  const line = comparableText(text);
  if (truth.kind === "text") return comparableText(truth.text).includes(line.slice(0, prefixChars));
  const inside = (snippets: string[]) => snippets.some((snippet) => comparableText(snippet).length > 10 && line.includes(comparableText(snippet)));
  return inside(truth.with) ? true : inside(truth.without) ? false : undefined;
}
