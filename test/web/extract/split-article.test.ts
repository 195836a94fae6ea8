/**
 * An article split across sibling wrappers (its parts share a class that names them as content, numbered
 * "story-body-1", "story-body-2", with a related-links box between) comes back whole: the chosen part widens
 * to the ancestor holding every part. Blocks of the same class far from it (a sidebar's teasers) do not join.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p class="story-text">Paragraph ${n} of the column weighs the deal, who gains from it, and what the shareholders may still say about it.</p>`;
const paras = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => para(from + i)).join("");
const related = `<div class="related"><h4>Related coverage</h4><ul><li><a href="/a">Another story on the deal</a></li><li><a href="/b">And one more</a></li></ul></div>`;
const read = (body: string) => extractHtmlSync({ html: `<html><body><div id="nav"><a href="/">Home</a></div>${body}</body></html>`, url: "https://example.com/a", markdown: false }).text;

describe("articles split across sibling wrappers", () => {
  it("come back whole", () => {
    const text = read(`<div id="x1"><div class="wrap"><div class="story-body story-body-1">${paras(1, 1)}</div>${related}</div><div class="wrap"><div class="story-body story-body-2">${paras(2, 9)}</div><div class="ad">Advertisement</div></div></div>`);
    expect(text).toContain("Paragraph 1 of the column");
    expect(text).toContain("Paragraph 9 of the column");
    expect(text).not.toContain("Another story on the deal");
  });

  it("come back whole when the page names the parts as the article body by itemprop, not by class", () => {
    const part = (id: number, from: number, to: number) => `<div class="outer"><div class="inner"><section id="s-${id}" class="l-section s-cms" itemprop="articleBody">${paras(from, to)}</section></div></div>`;
    const text = read(`<div id="x3">${part(0, 1, 4)}<div class="ad">Advertisement</div>${part(1, 5, 12)}${related}${part(2, 13, 16)}</div>`);
    expect(text).toContain("Paragraph 1 of the column");
    expect(text).toContain("Paragraph 16 of the column");
    expect(text).not.toContain("Another story on the deal");
  });

  it("take a sibling part of the same class whose paragraphs sit too deep to score it", () => {
    const deep = (inner: string) => `<section><div><div><div><div><div>${inner}</div></div></div></div></div></section>`;
    const text = read(`<div id="x2"><div class="part scale1">${deep(paras(1, 3))}</div><div class="part scale1">${paras(4, 9)}</div><div class="part scale1">${paras(10, 12)}</div><div class="more"><a href="/m">More</a></div></div>`);
    expect(text).toContain("Paragraph 1 of the column");
    expect(text).toContain("Paragraph 12 of the column");
  });

  it("leave out blocks of the same class far away", () => {
    const teaser = (n: number) => `<div class="box"><div class="item"><div class="entry-content"><p>Teaser ${n} of another article, long enough to count as prose of its own on the page, with a second clause.</p></div></div></div>`;
    const text = read(`<div id="main"><div class="col"><div class="inner"><div class="post"><div class="entry-content">${paras(1, 8)}</div><div class="byline">By A. Writer</div></div></div></div><div class="side"><div class="list">${teaser(1)}${teaser(2)}</div></div></div>`);
    expect(text).toContain("Paragraph 8 of the column");
    expect(text).not.toContain("Teaser 1");
  });
});
