/**
 * Pictures' captions leave the content: a <figcaption> without a credit's mark on any page, WordPress's
 * `p.wp-caption-text` beside its picture on a page stating its article in JSON-LD. They stay when they tell the story
 * (a quarter of the prose or more), and when the element named a caption lies beside no picture.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the report says, plainly and at length, what the inspectors found at the dam and why it matters.</p>`;
const STATED = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"The dam"}</script>`;
const FIGURE = `<figure><img src="/d.jpg" alt=""><figcaption>The dam at dusk, seen from the old bridge over the river.</figcaption></figure>`;
const WORDPRESS = `<div id="attachment_12" class="wp-caption alignright"><img src="/e.jpg" alt=""><p class="wp-caption-text">Workers on the crest of the dam in the spring of 1931.</p></div>`;

function page(article: string, head = STATED): string {
  return `<html><head><title>The dam</title>${head}</head><body><nav><a href="/">Home</a></nav>
<article><h1>The dam</h1>${article}</article><footer><p>© City News</p></footer></body></html>`;
}
// The rules alone: the learned block filter, which may remove captions on such pages too, is left out.
const textOf = (html: string) => extractHtmlSync({ html, url: "https://example.com/dam", markdown: false, blockJudge: null }).text;

describe("pictures' captions", () => {
  it("leave a page stating its article in JSON-LD: a figcaption, a WordPress caption", () => {
    const text = textOf(page(`${para(1)}${FIGURE}${para(2)}${WORDPRESS}${para(3)}${para(4)}${para(5)}`));
    expect(text).toContain("Paragraph 5 of the report");
    expect(text).not.toContain("The dam at dusk");
    expect(text).not.toContain("Workers on the crest");
  });

  it("marked by HTML (a figcaption) leave any page; named by a class only a page stating its article in JSON-LD", () => {
    const timed = `<meta property="article:published_time" content="2017-03-01T10:00:00Z">`;
    for (const head of ["", timed]) {
      const text = textOf(page(`${para(1)}${FIGURE}${para(2)}${WORDPRESS}${para(3)}${para(4)}${para(5)}`, head));
      expect(text).toContain("Paragraph 5 of the report");
      expect(text).not.toContain("The dam at dusk");
      expect(text).toContain("Workers on the crest");
    }
  });

  it("stay where they tell the story (a gallery whose captions are a quarter of its prose)", () => {
    const shot = (n: number) => `<figure><img src="/${n}.jpg" alt=""><figcaption>Shot ${n}: the spillway from the north bank, with the turbines below and the town behind them in the haze.</figcaption></figure>`;
    const text = textOf(page(`${para(1)}${[1, 2, 3, 4].map(shot).join("")}${para(2)}${para(3)}`));
    expect(text).toContain("Shot 1: the spillway");
    expect(text).toContain("Shot 4: the spillway");
  });

  it("stay when the element named a caption lies beside no picture", () => {
    const text = textOf(page(`${para(1)}<div><p class="caption">Inspectors counted eleven cracks along the crest.</p></div>${para(2)}${para(3)}${FIGURE}${para(4)}`));
    expect(text).toContain("Inspectors counted eleven cracks");
    expect(text).not.toContain("The dam at dusk");
  });
});
