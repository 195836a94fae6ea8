/**
 * Whether a read's Markdown rendered only as far as max_chars keeps it (web/extract/markdown-prefix.ts) is the
 * whole content's Markdown cut there: every dev-set page read at each cut both ways, the cut Markdown, its
 * truncated flag and the text compared; prints the checks, how many were cut, the differences, and the
 * Markdown time both ways.
 *   node_modules/.bin/bun scripts/bench/markdown-prefix-check.ts [--data DIR] [--cuts 20000,5000,1200,300]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { extractPageSync } from "../../src/web/threads/extract-page.ts";
import { limitText } from "../../src/web/text/text-output.ts";

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const dir = join(option("--data") ?? "/work/shared/bench/extraction/data", "html");
const cuts = (option("--cuts") ?? "20000,5000,1200,300").split(",").map(Number);
const pages = readdirSync(dir)
  .filter((f) => f.endsWith(".html.gz"))
  .map((f) => ({ id: f, html: gunzipSync(readFileSync(join(dir, f))).toString("utf8") }));

let checks = 0;
let cutCount = 0;
const differences: string[] = [];
let wholeMs = 0;
let prefixMs = 0;
for (const { id, html } of pages) {
  const url = `https://example.com/${id}`;
  let started = performance.now();
  const whole = extractHtmlSync({ html, url, markdown: true });
  wholeMs += performance.now() - started;
  for (const maxChars of cuts) {
    started = performance.now();
    const read = extractPageSync({ html, url, markdown: true, maxChars });
    prefixMs += performance.now() - started;
    const markdown = limitText(whole.markdown ?? "", maxChars);
    checks++;
    if (markdown.truncated) cutCount++;
    if (read.markdown !== markdown.value) differences.push(`${id} at ${maxChars}: Markdown`);
    if (read.cut?.markdownTruncated !== markdown.truncated) differences.push(`${id} at ${maxChars}: truncated flag`);
    if (read.text !== limitText(whole.text, maxChars).value) differences.push(`${id} at ${maxChars}: text`);
  }
}
console.log(`${pages.length} pages at cuts ${cuts.join(", ")}: ${checks} checks, ${cutCount} of them cut, ${differences.length} differences`);
for (const difference of differences.slice(0, 20)) console.log(`  ${difference}`);
console.log(`time: whole content with Markdown ${(wholeMs / pages.length).toFixed(2)} ms a page; a read at each cut ${(prefixMs / (pages.length * cuts.length)).toFixed(2)} ms`);
console.log(`RESULT checks=${checks} cut=${cutCount} differences=${differences.length}`);
