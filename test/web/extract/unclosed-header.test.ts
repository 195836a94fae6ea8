/**
 * A page <header> or <footer> that holds an <article>, a <main> or a block named as content, and most of the
 * page's text, is not page chrome: an unclosed <header> round the whole page (its end tag missing) held the
 * article, and the page came back empty. A page header holding only a site-name h1 and links, or an aside of
 * teaser articles (even one holding most of the text), is still chrome.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} tells how the harbour town grew from a trading post round the year 800 to an industrial port.</p>`;
const paras = [1, 2, 3, 4, 5].map(para).join("");

describe("a page header holding the content", () => {
  it("is read when its end tag is missing and the article sits inside it", () => {
    const html = `<html><body><div id="page"><header id="branding"><div class="row"><a href="/" class="logo">Travel site</a></div><div id="wrap"><article class="page2"><h1>Emden</h1>${paras}</article></div></div></body></html>`;
    const result = extractHtmlSync({ html, url: "https://example.com/emden", markdown: false });
    expect(result.text).toContain("Paragraph 1 tells how the harbour town grew");
    expect(result.text).toContain("Paragraph 5 tells");
    expect(result.warnings).toEqual([]);
  });

  it("is read when it holds a <main>, on the fallback too", () => {
    const html = `<html><body><header><nav><a href="/">Home</a></nav><main><p>Short notice: the harbour museum opens at ten on weekdays and at noon on Sundays.</p></main></header></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/notice", markdown: false });
    expect(text).toContain("the harbour museum opens at ten");
  });

  it("is still dropped when it is a sidebar of teaser articles", () => {
    const teaser = (n: number) => `<article class="teaser"><h3>Other story ${n}</h3><p>Teaser ${n}: a feature about hybrid cars, and why the bet does not pay off for buyers.</p></article>`;
    const html = `<html><body><div class="story">${paras}</div><aside id="sidebar"><h2>Most Popular</h2>${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(teaser).join("")}</aside></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/c", markdown: false });
    expect(text).toContain("Paragraph 5 tells");
    expect(text).not.toContain("Teaser 1: a feature");
  });

  it("is still dropped when it holds only the site's name and links", () => {
    const html = `<html><body><header><h1>Harbour Travel Guide Online</h1><p>Guides, tips and offers for your next trip along the North Sea coast, every week.</p></header><div class="story">${paras}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/b", markdown: false });
    expect(text).toContain("Paragraph 3 tells");
    expect(text).not.toContain("Guides, tips and offers");
  });
});
