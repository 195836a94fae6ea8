/**
 * When detection finds too little (a one-paragraph post beside a column whose names score it higher), the
 * answer is the block holding the page's title heading, not the whole page.
 */
import { describe, expect, it } from "bun:test";
import { FALLBACK_WARNING, TITLED_BLOCK_WARNING, extractHtmlSync } from "../../../src/web/extract/extract.ts";

const menu = Array.from({ length: 40 }, (_, i) => `<li><a href="/m/${i}">Menu entry number ${i} of the site</a></li>`).join("");
const post = `<p>According to the report, shoppers past fifty spend more than any other group, and retailers that plan for them win spending and loyalty. That sounds like common sense to me, and the figures agree with it.</p>`;
const copyright = `<p>To the extent possible under law, all copyright and related or neighboring rights to this Work, Riding the Wave, by the author, are Reserved.</p>`;

function page(heading: string): string {
  return `<html><head><title>Riding the Wave of Diversity | Futurelab</title></head><body>
    <ul class="links">${menu}</ul>
    <div class="column"><div class="tagline"><h3><a href="/p/1">${heading}</a></h3>${post}</div></div>
    <div class="column blogposts"><div class="grey">${copyright}</div></div></body></html>`;
}

describe("when detection finds too little", () => {
  it("the block holding the page's title is returned, not the whole page", () => {
    const { text, warnings } = extractHtmlSync({ html: page("Riding the Wave of Diversity"), url: "https://example.com/a", markdown: false });
    expect(warnings).toEqual([TITLED_BLOCK_WARNING]);
    expect(text).toContain("shoppers past fifty");
    expect(text).not.toContain("Menu entry number 3");
  });

  it("the whole body is returned when no heading holds the title", () => {
    const { text, warnings } = extractHtmlSync({ html: page("Another post"), url: "https://example.com/a", markdown: false });
    expect(warnings).toEqual([FALLBACK_WARNING]);
    expect(text).toContain("Menu entry number 3");
  });

  it("the titled block's nearest ancestor holding enough once cleaned, when cleaning leaves the block itself short", () => {
    // A page-builder layout: the title sits in a section whose text is mostly a share bar (removed as boilerplate),
    // the post in the section beside it. The block's length is taken before cleaning.
    const share = Array.from({ length: 12 }, (_, i) => `<a href="/share/${i}">Share this post on network number ${i}</a>`).join(" ");
    const html = `<html><head><title>Riding the Wave of Diversity | Futurelab</title></head><body>
      <ul class="links">${menu}</ul>
      <div class="column"><div class="widget"><h3>Riding the Wave of Diversity</h3><nav class="share">${share}</nav></div>
      <div class="widget">${post}</div></div>
      <div class="column blogposts"><div class="grey">${copyright}</div></div></body></html>`;
    const { text, warnings } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(warnings).toEqual([TITLED_BLOCK_WARNING]);
    expect(text).toContain("Riding the Wave of Diversity");
    expect(text).toContain("shoppers past fifty");
    expect(text).not.toContain("Share this post");
    expect(text).not.toContain("Menu entry number 3");
  });
});
