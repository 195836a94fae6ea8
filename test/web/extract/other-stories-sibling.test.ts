/**
 * A list of other stories beside the article ("most-popular", "related"), its teasers written as paragraphs, does not
 * join the article as a sibling, however well the teasers score; a sibling of the article's own text still does
 * (issue 44, eighth try).
 * @see src/web/extract/content-choose.ts collectSiblings
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const sentence = (topic: string) =>
  `The markets fell on Tuesday, and the ${topic} fell with them, as traders weighed the figures, the forecasts and the words of the central bank's governor.`;
const article = ["shares", "bonds", "the dollar", "oil", "gold"].map((topic) => `<p>${sentence(topic)} ${sentence(topic)}</p>`).join("");
const teaser = (n: number) =>
  `<div class="article-content"><h3><a href="/story/${n}">Story number ${n} of the week</a></h3><p>Teaser ${n}: a long look at how the city's budget, its schools, its buses and its parks will change, and who will pay for it, over the next ten years.</p></div>`;
const page = (listClass: string) => `<html><head><title>Markets fall on Tuesday</title></head><body><div id="site">
<article id="article"><h1>Markets fall on Tuesday</h1>${article}</article>
<div class="${listClass}">${[1, 2, 3, 4, 5, 6].map(teaser).join("")}</div>
</div></body></html>`;

describe("a list of other stories beside the article", () => {
  it("is left out", () => {
    const result = extractHtmlSync({ html: page("most-popular-container fluid-container"), url: "https://example.com/markets", markdown: false });
    expect(result.text).toContain("The markets fell on Tuesday, and the gold fell");
    expect(result.text).not.toContain("Teaser 1:");
  });

  it("joins when nothing names it a list of other stories", () => {
    const result = extractHtmlSync({ html: page("fluid-container"), url: "https://example.com/markets", markdown: false });
    expect(result.text).toContain("Teaser 1:");
  });
});
