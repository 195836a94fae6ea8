/**
 * What web/changes' filters cost (issue 32), in one process, the sides taking turns page by page:
 *   bun scripts/bench/change-filters.ts [--rounds 5] [--data /work/shared/bench/extraction/data]
 *
 * 1. Per page, on the ~600 KB generated large page and on the dev set's pages: extraction and a 60,000-character
 *    cut without filters (what web/changes does today) beside the same with 5 ignore_selectors, 5 ignore_patterns
 *    and 2 trigger_patterns applied as the endpoint applies them (selectors before extraction, patterns on the
 *    text before the cut and on the previous text, triggers in the comparison). Prints medians and the ratio.
 *    Beside them, the reference `selectorsTwoParse`: ignore_selectors as they were applied before the extractor took
 *    them (parse, remove, serialize with dom-serializer, extract: the page parsed twice).
 * 2. The one parse against that reference: how many dev pages extract differently (text, Markdown, title, headings,
 *    links, description, language, the counts removed), with the bench's selectors and with one that removes only
 *    what extraction never reads (a <link> in the head).
 * 3. The pattern engine's worst case: patterns filling the request's RE2 program budget on a 240,000-character
 *    line (the scan limit), and `(a+)+$|!` on n "a"s and a "!" (it matches: the "!") with re2js beside the
 *    built-in RegExp, whose backtracking doubles with each character until JavaScriptCore's backtracking limit,
 *    about a second later, where it answers false: slow and wrong (the reason re2js is used).
 */
import { compareText } from "../../src/web/compare/compare.ts";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { render } from "dom-serializer";
import { outermostMatchesIn, SelectorBudget } from "../../src/web/extract/caller-selectors.ts";
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { removeNode } from "../../src/web/extract/dom.ts";
import type { HtmlExtraction } from "../../src/web/extract/extract.ts";
import { renderCanonicalText } from "../../src/web/text/canonical-text.ts";
import { removeMatchingLines } from "../../src/web/filters/line-filter.ts";
import { compileLinePatterns, compileRequestPatterns, firstMatch, MAX_TOTAL_PROGRAM_SIZE } from "../../src/web/filters/line-patterns.ts";
import { limitText } from "../../src/web/text/text-output.ts";
import { DEV_SET_DIR, loadDevPages, option } from "./dev-set.ts";
import { largePage } from "./large-page.ts";

const rounds = Number(option("rounds", "5"));
const data = option("data", DEV_SET_DIR);
const MAX_CHARS = 60_000;
const URL_ = "https://example.com/page";

const ignoreSelectors = ["nav", ".ad, .advert", "[data-timestamp]", "aside p", "table tr:nth-child(odd)"];
const ignorePatterns = ["^Updated \\d+ (minutes|hours) ago$", "\\d{1,2}:\\d{2}(:\\d{2})?", "(?i)^\\d[\\d,.]* (visitors|views|comments)", "[0-9a-f]{32}", "(?i)session"];
const triggerPatterns = ["(?i)price|cost", "(?i)^(in|out of) stock$"];
const patterns = compileRequestPatterns(ignorePatterns, triggerPatterns);

function plain(html: string, previous: string): unknown {
  const text = limitText(extractHtmlSync({ html, url: URL_, markdown: false }).text, MAX_CHARS).value;
  return compareText({ currentText: text, previousText: previous, diffSummary: false, maxChars: MAX_CHARS });
}

/** The reference: ignore_selectors applied as before the extractor took them (parse, remove, serialize, extract). */
function extractTwoParse(html: string, selectors: readonly string[], markdown: boolean): HtmlExtraction {
  const page = parsePage(cutUnreadMarkup(html));
  const named = selectors.map((selector, index) => ({ selector, name: `ignore_selectors[${index}]` }));
  const removed = outermostMatchesIn(page.document, named, new SelectorBudget());
  if (removed.length === 0) return { ...extractHtmlSync({ html, url: URL_, markdown }), ignored: { elements: 0, lines: 0 } };
  let lines = 0;
  for (const element of removed) {
    lines += renderCanonicalText(element).split("\n").filter((line) => line.trim() !== "").length;
    removeNode(element);
  }
  const pruned = render(page.document, { encodeEntities: "utf8" });
  return { ...extractHtmlSync({ html: pruned, url: URL_, markdown }), ignored: { elements: removed.length, lines } };
}

function selectorsTwoParse(html: string, previous: string): unknown {
  const text = limitText(extractTwoParse(html, ignoreSelectors, false).text, MAX_CHARS).value;
  return compareText({ currentText: text, previousText: previous, diffSummary: false, maxChars: MAX_CHARS });
}

function selectorsOnly(html: string, previous: string): unknown {
  const text = limitText(extractHtmlSync({ html, url: URL_, markdown: false, ignoreSelectors }).text, MAX_CHARS).value;
  return compareText({ currentText: text, previousText: previous, diffSummary: false, maxChars: MAX_CHARS });
}

function patternsOnly(html: string, previous: string): unknown {
  const extraction = extractHtmlSync({ html, url: URL_, markdown: false });
  const text = limitText(removeMatchingLines(extraction.text, patterns.ignore, MAX_CHARS).text, MAX_CHARS).value;
  const previousText = removeMatchingLines(previous, patterns.ignore, Number.POSITIVE_INFINITY).text;
  return compareText({ currentText: text, previousText, diffSummary: false, maxChars: MAX_CHARS, trigger: (line) => firstMatch(patterns.trigger, line) >= 0 });
}

function filtered(html: string, previous: string): unknown {
  const extraction = extractHtmlSync({ html, url: URL_, markdown: false, ignoreSelectors });
  const text = limitText(removeMatchingLines(extraction.text, patterns.ignore, MAX_CHARS).text, MAX_CHARS).value;
  const previousText = removeMatchingLines(previous, patterns.ignore, Number.POSITIVE_INFINITY).text;
  return compareText({ currentText: text, previousText, diffSummary: false, maxChars: MAX_CHARS, trigger: (line) => firstMatch(patterns.trigger, line) >= 0 });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const ms = (x: number) => x.toFixed(2);

const sides = { plain, filtered, selectorsOnly, selectorsTwoParse, patternsOnly };
type Side = keyof typeof sides;

/** Times every side page by page, rotating which goes first; returns per-page medians summed over pages. */
function race(pages: readonly string[]): Record<Side, number> {
  const names = Object.keys(sides) as Side[];
  const previous = pages.map((html) => limitText(extractHtmlSync({ html, url: URL_, markdown: false }).text, MAX_CHARS).value);
  const totals = Object.fromEntries(names.map((n) => [n, 0])) as Record<Side, number>;
  pages.forEach((html, i) => {
    const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Side, number[]>;
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(r + k) % names.length] as Side;
        const t0 = performance.now();
        sides[name](html, previous[i] as string);
        times[name].push(performance.now() - t0);
      }
    }
    for (const name of names) totals[name] += median(times[name]);
  });
  return totals;
}

function report(label: string, totals: Record<Side, number>, count: number): void {
  const per = (side: Side) => `${ms(totals[side] / count)} ms (× ${(totals[side] / totals.plain).toFixed(2)})`;
  console.log(`${label}: without filters ${ms(totals.plain / count)} ms a page; with all filters ${per("filtered")}; ignore_selectors alone ${per("selectorsOnly")} (reference, parsed twice: ${per("selectorsTwoParse")}); patterns alone ${per("patternsOnly")}`);
}

console.log(`change-filters bench (rounds ${rounds}; shared machine: timings are noisy, compare the ratios)`);
console.log(`filters: ${ignoreSelectors.length} ignore_selectors, ${ignorePatterns.length} ignore_patterns, ${triggerPatterns.length} trigger_patterns`);

const large = [1, 2, 3].map((seed) => new TextDecoder().decode(largePage(seed)));
race(large.slice(0, 1)); // warm-up
report("large pages (3 × ~600 KB)", race(large), 3);

let dev: string[] = [];
try {
  dev = loadDevPages(data);
} catch {
  console.log(`dev set not found at ${data}: pass --data DIR`);
}
if (dev.length > 0) {
  report(`dev set (${dev.length} pages)`, race(dev), dev.length);

  for (const selectors of [ignoreSelectors, ["head > link"]]) {
    let differ = 0;
    let removing = 0;
    for (const html of dev) {
      const reference = extractTwoParse(html, selectors, true);
      const ours = extractHtmlSync({ html, url: URL_, markdown: true, ignoreSelectors: selectors });
      if (reference.ignored && reference.ignored.elements > 0) removing++;
      const same = (x: HtmlExtraction) => JSON.stringify([x.text, x.markdown, x.title, x.headings, x.links, x.description, x.language, x.ignored]);
      if (same(reference) !== same(ours)) differ++;
    }
    console.log(`one parse against parse, serialize, parse (ignore_selectors ${JSON.stringify(selectors)}): ${removing} of ${dev.length} dev pages have matches, ${differ} extract differently`);
  }
}

function timeOnce(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

const budget = compileLinePatterns("ignore_patterns", Array(4).fill("[a-z]{1,240}[^a-z]"));
const budgetSize = budget.reduce((sum, p) => sum + p.regex.programSize(), 0);
const letters = "a".repeat(240_000);
console.log(
  `worst case: 4 patterns of ${budget[0]!.regex.programSize()} RE2 instructions (${budgetSize} of the ${MAX_TOTAL_PROGRAM_SIZE} budget) on one 240,000-letter line: ` +
    `${ms(timeOnce(() => removeMatchingLines(letters, budget, MAX_CHARS)))} ms`,
);
const [nested] = compileLinePatterns("ignore_patterns", ["(a+)+$|!"]);
const builtIn = /(a+)+$|!/;
for (const n of [20, 24, 30, 60_000]) {
  const line = `${"a".repeat(n)}!`;
  let ours = false;
  let theirs = false;
  const oursMs = timeOnce(() => (ours = firstMatch([nested!], line) === 0));
  const theirsMs = timeOnce(() => (theirs = builtIn.test(line)));
  console.log(`(a+)+$|! on ${n} "a"s and a "!" (matches): re2js ${ms(oursMs)} ms, ${ours}; built-in RegExp ${ms(theirsMs)} ms, ${theirs}`);
}
