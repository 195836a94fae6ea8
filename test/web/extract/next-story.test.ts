/**
 * Two stories on one page, each in its own <article> (a news site's next story, loaded below the one the page is
 * about): the content is the story whose headline is the page's title, even when the next one is longer (issue 44,
 * eighth try; without the rule the longer story wins). Stories titled in h2 (a list of them, as correctiv.org's)
 * are told apart the same way (tenth try).
 * @see src/web/extract/content-choose.ts anotherStoryBeside
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const story = (headline: string, topic: string, count: number) =>
  `<article class="story"><header><h1>${headline}</h1></header><section class="story-content"><div class="story-body">${Array.from(
    { length: count },
    (_, n) => `<p>Paragraph ${n + 1} on ${topic}: the council met on Tuesday, and the plan, its costs and its critics were heard in turn, officials said.</p>`,
  ).join("")}</div></section></article>`;
const page = `<html><head><title>Climbers will carry rubbish bins up the mountain</title></head><body><div class="main">
<div id="this-story">${story("Climbers will carry rubbish bins up the mountain", "the rubbish bins", 3)}</div>
<div id="next-story">${story("A summit asks what the country should be at seventy", "the summit", 16)}</div>
</div></body></html>`;

describe("the next story below the page's own", () => {
  it("is not taken for the content, however long", () => {
    const result = extractHtmlSync({ html: page, url: "https://example.com/news/bins", markdown: false });
    expect(result.text).toContain("Paragraph 3 on the rubbish bins");
    expect(result.text).not.toContain("on the summit");
  });

  it("is not taken when the stories are titled in h2, in a list of stories", () => {
    const listed = page.replace(/<h1>/g, "<h2>").replace(/<\/h1>/g, "</h2>").replace(/<article class="story">/g, '<article class="list__item">');
    const result = extractHtmlSync({ html: listed, url: "https://example.com/news/bins", markdown: false });
    expect(result.text).toContain("Paragraph 3 on the rubbish bins");
    expect(result.text).not.toContain("on the summit");
  });
});
