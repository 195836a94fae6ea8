/**
 * Layout words (widget, sidebar, overlay, a collapsed "read more", sharing hooks) are evidence, not verdicts:
 * inside a container named as content they no longer drop the block, so an article whose second half sits
 * in `<div id="read-more">`, or whose body div carries a `js-social-images` hook, comes back whole. Outside
 * the content they drop it as before, unless it holds a column of prose (a layout "with a fixed sidebar" around
 * the article's column), and words of comment threads drop it everywhere.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const paragraph = (n: number) => `<p>Paragraph ${n} of the column argues its case in plain words and at some length so that it reads as prose and not as a list of links.</p>`;
const paragraphs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => paragraph(from + i)).join("");
const sidebar = `<div class="sidebar widget"><p>The sidebar widget says something long enough to be a paragraph of its own about other things.</p></div>`;
const comments = `<div class="comments"><p>A reader comments at length that the column is wrong about almost everything it says.</p></div>`;
const page = (article: string) => `<html><head><title>T</title></head><body><div id="page"><div class="story-body">${article}${comments}</div>${sidebar}</div></body></html>`;
const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/a", markdown: false });

describe("layout words in class and id names", () => {
  it("keep an article's collapsed second half inside the story body", () => {
    const html = page(`${paragraphs(1, 3)}<div id="read-more"><div id="read-more-content">${paragraphs(4, 12)}</div></div>`);
    const { text } = read(html);
    expect(text).toContain("Paragraph 1 of the column");
    expect(text).toContain("Paragraph 12 of the column");
    expect(text).not.toContain("sidebar widget");
    expect(text).not.toContain("A reader comments");
  });

  it("keep an article body carrying a sharing hook inside a container named as the article", () => {
    const html = `<html><body><div id="article"><div class="module content_module js-social-images">${paragraphs(1, 5)}</div>${comments}</div>${sidebar}</body></html>`;
    const { text } = read(html);
    expect(text).toContain("Paragraph 5 of the column");
    expect(text).not.toContain("A reader comments");
  });

  it("keep a layout named for its sidebar that holds the article's column, not the header above it", () => {
    // A news template (Vox Media's): the headline, a long dek and the byline in a hero, the article in a column of
    // "l-sidebar-fixed" beside the sidebar. Dropping that layout unseen leaves the hero, over the floor.
    const hero = `<div class="c-entry-hero"><h1>The monster movie that forgot its monster</h1><h2 class="c-entry-summary">Let us list three big things this occasionally fun, mostly frustrating monster movie badly misunderstands about its hero.</h2><div class="c-byline">By Todd Writer, updated Mar 10, 2017, 3:19pm EST, with a note on the sources</div></div>`;
    const html = `<html><head><title>The monster movie that forgot its monster - Site</title></head><body><section class="l-main-content">${hero}<div class="l-sidebar-fixed"><div class="l-col__main"><div class="c-entry-content">${paragraphs(1, 10)}</div></div><div class="l-col__sidebar"><ul><li><a href="/a">Another story</a></li></ul></div></div></section></body></html>`;
    const { text } = read(html);
    expect(text).toContain("The monster movie that forgot its monster");
    expect(text).toContain("Paragraph 1 of the column");
    expect(text).toContain("Paragraph 10 of the column");
  });

  it("still drop a sidebar of a few paragraphs beside the article", () => {
    const html = `<html><body><div id="page"><div class="story-body">${paragraphs(1, 6)}</div><div class="sidebar"><p>The sidebar says one thing at length, long enough to be a paragraph of its own, about other stories.</p><p>And a second thing, as long, about a newsletter one might like to read every single morning.</p></div></div></body></html>`;
    const { text } = read(html);
    expect(text).toContain("Paragraph 6 of the column");
    expect(text).not.toContain("The sidebar says one thing");
  });
});
