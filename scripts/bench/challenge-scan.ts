/**
 * The bot-challenge check's visible-text count on the extraction dev set (first 256 KB of each page,
 * as isBotChallenge reads them): the scan uncapped and capped at 2,000 characters (as the check calls
 * it) beside the three regex passes it replaced, in one run; also how many pages the two disagree on,
 * and whether any disagreement crosses the 2,000-character line the check decides on.
 *   node_modules/.bin/bun scripts/bench/challenge-scan.ts [--data DIR]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { estimateTextLength } from "../../src/web/fetch/challenge.ts";

const at = process.argv.indexOf("--data");
const dir = join(at > 0 ? (process.argv[at + 1] as string) : "/work/shared/bench/extraction/data", "html");
const pages = readdirSync(dir).filter((f) => f.endsWith(".html.gz")).map((f) => gunzipSync(readFileSync(join(dir, f))).toString("utf8").slice(0, 256 * 1024));

const byRegex = (html: string) =>
  html.replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, " ").replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim().length;

const time = (run: (html: string) => number) => {
  const started = performance.now();
  const counts = pages.map(run);
  return { ms: performance.now() - started, counts };
};
const regex = time(byRegex);
const scan = time((html) => estimateTextLength(html));
const capped = time((html) => estimateTextLength(html, 2000));
const differ = pages.filter((_, i) => regex.counts[i] !== scan.counts[i]).length;
const crossing = pages.filter((_, i) => (regex.counts[i]! > 2000) !== (capped.counts[i]! > 2000)).length;
console.log(`${pages.length} pages: regex passes ${regex.ms.toFixed(1)} ms, scan ${scan.ms.toFixed(1)} ms, scan capped at 2,000 ${capped.ms.toFixed(1)} ms`);
console.log(`exact counts differ on ${differ} pages; the check's decision (more than 2,000 or not) differs on ${crossing}`);
