/**
 * What web/changes' filters cost (issue 32), in one process, the sides taking turns page by page:
 *   bun scripts/bench/change-filters.ts [--rounds 5] [--data /work/shared/bench/extraction/data]
 *
 * 1. Per page, on the ~600 KB generated large page and on the dev set's pages: extraction and a 60,000-character
 *    cut without filters (what web/changes does today) beside the same with 5 ignore_selectors, 5 ignore_patterns
 *    and 2 trigger_patterns applied as the endpoint applies them (selectors before extraction, patterns on the
 *    text before the cut and on the previous text, triggers in the comparison). Prints medians and the ratio.
 * 2. The selector round trip: how many dev pages extract differently (text, Markdown, title, headings, links)
 *    when a selector that only removes scripts and styles makes the page go through parse, serialize, parse.
 * 3. The pattern engine's worst case: patterns filling the request's RE2 program budget on a 240,000-character
 *    line (the scan limit), and `(a+)+$` on 60,000 characters, beside the built-in RegExp on `(a+)+$` at 20 to 28
 *    characters, where its time doubles with each character (the reason re2js is used).
 */
import { compareText } from "../../src/web/compare/compare.ts";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { extractFiltered } from "../../src/web/filters/filtered-extract.ts";
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

function filtered(html: string, previous: string): unknown {
  const extraction = extractFiltered({ html, url: URL_, markdown: false, ignoreSelectors });
  const text = limitText(removeMatchingLines(extraction.text, patterns.ignore, MAX_CHARS).text, MAX_CHARS).value;
  const previousText = removeMatchingLines(previous, patterns.ignore, Number.POSITIVE_INFINITY).text;
  return compareText({ currentText: text, previousText, diffSummary: false, maxChars: MAX_CHARS, trigger: (line) => firstMatch(patterns.trigger, line) >= 0 });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const ms = (x: number) => x.toFixed(2);

/** Times both sides page by page, alternating which goes first; returns per-page medians summed over pages. */
function race(pages: readonly string[]): { plain: number; filtered: number } {
  const previous = pages.map((html) => limitText(extractHtmlSync({ html, url: URL_, markdown: false }).text, MAX_CHARS).value);
  let plainTotal = 0;
  let filteredTotal = 0;
  pages.forEach((html, i) => {
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const sides: [number[], (h: string, p: string) => unknown][] = r % 2 === 0 ? [[a, plain], [b, filtered]] : [[b, filtered], [a, plain]];
      for (const [into, run] of sides) {
        const t0 = performance.now();
        run(html, previous[i] as string);
        into.push(performance.now() - t0);
      }
    }
    plainTotal += median(a);
    filteredTotal += median(b);
  });
  return { plain: plainTotal, filtered: filteredTotal };
}

console.log(`change-filters bench (rounds ${rounds}; shared machine: timings are noisy, compare the ratios)`);
console.log(`filters: ${ignoreSelectors.length} ignore_selectors, ${ignorePatterns.length} ignore_patterns, ${triggerPatterns.length} trigger_patterns`);

const large = [1, 2, 3].map((seed) => new TextDecoder().decode(largePage(seed)));
race(large.slice(0, 1)); // warm-up
const big = race(large);
console.log(`large pages (3 × ~600 KB): without filters ${ms(big.plain / 3)} ms a page, with filters ${ms(big.filtered / 3)} ms (× ${(big.filtered / big.plain).toFixed(2)})`);

let dev: string[] = [];
try {
  dev = loadDevPages(data);
} catch {
  console.log(`dev set not found at ${data}: pass --data DIR`);
}
if (dev.length > 0) {
  const set = race(dev);
  console.log(`dev set (${dev.length} pages): without filters ${ms(set.plain / dev.length)} ms a page, with filters ${ms(set.filtered / dev.length)} ms (× ${(set.filtered / set.plain).toFixed(2)})`);

  let differ = 0;
  let roundTripped = 0;
  for (const html of dev) {
    const before = extractHtmlSync({ html, url: URL_, markdown: true });
    const after = extractFiltered({ html, url: URL_, markdown: true, ignoreSelectors: ["script", "style"] });
    if (after.ignored && after.ignored.elements > 0) roundTripped++;
    const same = (x: typeof before) => JSON.stringify([x.text, x.markdown, x.title, x.headings, x.links, x.description, x.language]);
    if (same(before) !== same(after)) differ++;
  }
  console.log(`selector round trip (ignore_selectors ["script", "style"]): ${roundTripped} of ${dev.length} dev pages re-serialized, ${differ} extract differently`);
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
const [nested] = compileLinePatterns("ignore_patterns", ["(a+)+$"]);
console.log(`re2js (a+)+$ on 60,000 characters and a "!": ${ms(timeOnce(() => firstMatch([nested!], `${"a".repeat(60_000)}!`)))} ms`);
const builtIn = /(a+)+$/;
const growth = [20, 22, 24, 26, 28].map((n) => `${n}: ${ms(timeOnce(() => builtIn.test(`${"a".repeat(n)}!`)))} ms`);
console.log(`built-in RegExp (a+)+$ on n characters and a "!" (time doubles per character; 60,000 would never end): ${growth.join(", ")}`);
