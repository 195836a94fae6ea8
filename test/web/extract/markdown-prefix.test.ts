/**
 * Markdown rendered only as far as the caller keeps it (markdown-prefix.ts): a read answers at most max_chars of
 * Markdown, so the content past that point is not rendered, and what the caller keeps is the whole content's
 * Markdown cut at the same place.
 */
import { describe, expect, it } from "bun:test";
import { parsePage } from "../../../src/web/extract/content-parse.ts";
import { selectFirstIn, type Element } from "../../../src/web/extract/dom.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";
import { renderMarkdownConsuming } from "../../../src/web/extract/markdown.ts";
import { extractPageSync } from "../../../src/web/threads/extract-page.ts";
import { limitText } from "../../../src/web/text/text-output.ts";

const paragraphs = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `<p>Paragraph ${from + i} of the article, with <em>some</em> words and a <a href="/l/${i}">link</a>.</p>`).join("");
const table = (rows: number) =>
  `<table><tr><th>name</th><th>value</th></tr>${Array.from({ length: rows }, (_, i) => `<tr><td>row ${i} with a longer cell of text</td>${i === rows - 1 ? "<td>a</td><td>late third column</td>" : "<td>v</td>"}</tr>`).join("")}</table>`;
/** Highlighted code: a node per line, and a run of backticks late in it that lengthens the whole block's fence. */
const code = (lines: number) =>
  `<pre><code>${Array.from({ length: lines }, (_, i) => `<span class="line">line ${i} of code</span>`).join("\n")}\n<span>\`\`\`\`late fence\`\`\`\`</span></code></pre>`;

/** The Markdown of `#main` in full, and rendered only as far as `keep` code points. */
function bothWays(body: string, keep: number) {
  const root = () => selectFirstIn(parsePage(`<html><body><div id="main">${body}</div></body></html>`).body, "#main") as Element;
  return { full: renderMarkdownConsuming(root()), kept: renderMarkdownConsuming(root(), keep) };
}

function expectSameCut(full: string, kept: string, keep: number) {
  expect(limitText(kept, keep)).toEqual(limitText(full, keep));
}

describe("Markdown rendered only as far as the caller keeps it", () => {
  it("leaves the content far past the cut unrendered, and cuts the same", () => {
    const { full, kept } = bothWays(paragraphs(2000), 2000);
    expect(full.length).toBeGreaterThan(100_000);
    expect(kept.length).toBeLessThan(10_000);
    expectSameCut(full, kept, 2000);
  });

  it("renders everything when the content is shorter than the cut", () => {
    const { full, kept } = bothWays(paragraphs(5), 20_000);
    expect(kept).toBe(full);
  });

  it("keeps a whole table whose rows the cut falls among: its column count pads every row", () => {
    const body = `${paragraphs(3)}${table(80)}${paragraphs(300, 3)}`;
    const { full, kept } = bothWays(body, 600);
    expect(kept).toContain("late third column");
    expect(kept).not.toContain("Paragraph 4 ");
    expectSameCut(full, kept, 600);
  });

  it("keeps a whole code block the cut falls in: its fence depends on the backticks inside", () => {
    const body = `${paragraphs(2)}${code(400)}${paragraphs(300, 2)}`;
    const { full, kept } = bothWays(body, 600);
    expect(kept).toContain("`````");
    expectSameCut(full, kept, 600);
  });

  it("counts a letter and its combining marks as one, as NFC may compose them", () => {
    const decomposed = "<span>e\u0301</span>".repeat(6000);
    const { full, kept } = bothWays(`<p>${decomposed}</p>${paragraphs(300)}`, 2500);
    expectSameCut(full.normalize("NFC"), kept.normalize("NFC"), 2500);
  });

  it("gives a read the same cut Markdown, truncated flag and text", () => {
    const html = `<html><head><title>Long</title></head><body><article><h1>A long article</h1>${paragraphs(3000)}</article></body></html>`;
    const whole = extractHtmlSync({ html, url: "https://example.com/long", markdown: true });
    const read = extractPageSync({ html, url: "https://example.com/long", markdown: true, maxChars: 5000 });
    expect(read.markdown).toBe(limitText(whole.markdown!, 5000).value);
    expect(read.cut?.markdownTruncated).toBe(true);
    expect(read.text).toBe(limitText(whole.text, 5000).value);
  });
});
