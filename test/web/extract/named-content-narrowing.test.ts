/**
 * A block named as content (class "content", "entry-content", itemprop articleBody) inside the chosen block
 * that holds most of its prose is the content: the rest of the chosen column (a related-content label, an
 * advertisement's label, sponsored lines under the article) is the page's. A named block holding less than
 * half leaves the chosen block as it was.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const paragraphs = (count: number) =>
  Array.from({ length: count }, (_, i) => `<p>Paragraph ${i + 1}: the commission opened two investigations on Monday, and the company said it would cooperate, its lawyers added.</p>`).join("");
// Short lines of the column round the article (labels, teasers with commas): they score the column above the
// article, and are neither a block for cleaning nor a paragraph that joins the article.
const labels = Array.from({ length: 8 }, (_, i) => `<p>Sponsored ${i + 1}, partner content, offers, deals, more</p>`).join("");
const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/news", markdown: false }).text;

describe("a block named as content inside the chosen block", () => {
  it("is taken when it holds most of the chosen block's prose", () => {
    const text = read(`<html><body><div id="col"><div>R E L A T E D C O N T E N T</div><div class="content">${paragraphs(8)}</div>${labels}</div><div id="nav"><a href="/">Home</a></div></body></html>`);
    expect(text).toContain("Paragraph 8: the commission");
    expect(text).not.toContain("Sponsored 1");
    expect(text).not.toContain("R E L A T E D");
  });

  it("is not taken when it holds less than half of it", () => {
    const text = read(`<html><body><div id="col"><div class="content">${paragraphs(2)}</div>${paragraphs(5)}</div><div id="nav"><a href="/">Home</a></div></body></html>`);
    expect(text).toContain("Paragraph 2: the commission");
    expect(text).toContain("Paragraph 5: the commission");
  });
});
