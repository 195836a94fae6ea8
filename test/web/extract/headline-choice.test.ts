/**
 * The headline kept above the article, when the block holding the article leaves it out, is the h1 holding the
 * page's title, not the first h1 of the page: a site's logo or section name is often an h1 above the article's. With
 * no h1 holding the title, an h2 or h3 holding it is the headline ("h2.article-title" under a logo h1).
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the report says, plainly and at length, how the final was won and by whom.</p>`;

function page(logo: string): string {
  return `<html><head><title>USA Eliminates Japan, 2-1, to Advance to First Ever Final | Sports Channel</title></head><body>
<header class="site-header"><h1 class="logo">${logo}</h1><nav><a href="/">Home</a> <a href="/scores">Scores</a></nav></header>
<div class="headline-region"><h1 class="headline">USA Eliminates Japan, 2-1, to Advance to First Ever Final</h1><div class="byline">By Ann Writer</div></div>
<div class="columns"><div class="article-text">${[1, 2, 3, 4, 5, 6].map(para).join("")}</div><aside class="rail"><h3>Trending</h3><ul><li><a href="/a">A story</a></li></ul></aside></div>
</body></html>`;
}

describe("the headline kept above the article", () => {
  for (const [name, logo] of [["a site's name", "Sports Channel 4 You"], ["an empty logo", '<a href="/"><img src="/logo.png" alt=""></a>']] as const) {
    it(`is the h1 holding the page's title, not ${name} in an h1 above it`, () => {
      const text = extractHtmlSync({ html: page(logo), url: "https://example.com/final", markdown: false }).text;
      expect(text.startsWith("USA Eliminates Japan, 2-1, to Advance to First Ever Final")).toBe(true);
      expect(text).toContain("Paragraph 6 of the report");
      expect(text).not.toContain("Sports Channel 4 You");
    });
  }

  it("is an h2 holding the page's title when no h1 holds it", () => {
    const html = page("Sports Channel 4 You").replace('<h1 class="headline">USA Eliminates Japan, 2-1, to Advance to First Ever Final</h1>', '<h2 class="article-title">USA Eliminates Japan, 2-1, to Advance to First Ever Final</h2>');
    const text = extractHtmlSync({ html, url: "https://example.com/final", markdown: false }).text;
    expect(text.startsWith("USA Eliminates Japan, 2-1, to Advance to First Ever Final")).toBe(true);
    expect(text).not.toContain("Sports Channel 4 You");
  });
});
