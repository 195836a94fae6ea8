import { describe, expect, it } from "bun:test";
import { DomChanges } from "../../../src/web/extract/content-changes.ts";
import { detectMainContent } from "../../../src/web/extract/content-detect.ts";
import { parseHtmlDocument } from "../../../src/web/extract/content-parse.ts";
import { trimUnreadMarkup } from "../../../src/web/extract/content-trim.ts";
import { extractHtml, FALLBACK_WARNING } from "../../../src/web/extract/extract.ts";

const paragraph = (topic: string) =>
  `<p>The ${topic} report, published on Monday by the regional authority, describes in some detail how the work was done, what it cost, and which of the findings the authors consider firm enough to act on this year.</p>`;

describe("web/content-trim", () => {
  it("drops attributes no extraction reads and keeps the ones it does, per element", () => {
    expect(trimUnreadMarkup('<div id="a" class="b" data-x="1" onclick="go()" title="t" width=3>x</div>')).toBe('<div id="a" class="b">x</div>');
    expect(trimUnreadMarkup(`<a href="/p" title='T' aria-label=L target="_blank" rel="nofollow">p</a>`)).toBe(`<a href="/p" title='T' aria-label=L>p</a>`);
    expect(trimUnreadMarkup('<img src="/i.png" alt="A" title="T" width="10" srcset="/2x.png 2x"/>')).toBe('<img src="/i.png" alt="A" title="T"/>');
    expect(trimUnreadMarkup('<meta property="og:title" content="C" data-y="z"><html lang="fr" dir="ltr">')).toBe('<meta property="og:title" content="C"><html lang="fr">');
    expect(trimUnreadMarkup('<td colspan="2" align="left">c</td><ol start="3" type="a"><li value="4">i</li></ol>')).toBe('<td colspan="2">c</td><ol start="3"><li>i</li></ol>');
    expect(trimUnreadMarkup('<section role="navigation" hidden aria-hidden="true" itemprop="articleBody" lang="en">')).toBe('<section role="navigation" hidden aria-hidden="true" itemprop="articleBody">');
  });

  it("keeps a style only when it hides the element (or holds an entity the parser would decode)", () => {
    expect(trimUnreadMarkup('<p style="color: red">a</p><p style="DISPLAY : none">b</p><p style="visibility:hidden">c</p>')).toBe('<p>a</p><p style="DISPLAY : none">b</p><p style="visibility:hidden">c</p>');
    expect(trimUnreadMarkup('<p style="display&#58;none">d</p>')).toBe('<p style="display&#58;none">d</p>');
  });

  it("returns a page with nothing to drop unchanged", () => {
    const html = '<html lang="en"><body><div class="post"><p>Hello <a href="/x">there</a></p></div></body></html>';
    expect(trimUnreadMarkup(html)).toBe(html);
  });

  it("drops link and input tags and closed select menus, but not an unclosed select", () => {
    expect(trimUnreadMarkup('<link rel="stylesheet" href="/s.css"><p>a<input type="text" name="q">b</p>')).toBe("<p>ab</p>");
    expect(trimUnreadMarkup("x<select name=s><option>One<option selected>Two</SELECT >y")).toBe("xy");
    expect(trimUnreadMarkup("x<select><option>never closed<p>text</p>")).toBe("x<select><option>never closed<p>text</p>");
  });

  it("reads quoted values as the tokenizer does and leaves title text alone", () => {
    expect(trimUnreadMarkup('<a href="/x" title="a > b" onclick="f(\'>\')">t</a>')).toBe('<a href="/x" title="a > b">t</a>');
    expect(trimUnreadMarkup('<title>a <b onclick="x">b</b></title><b onclick="x">c</b>')).toBe('<title>a <b onclick="x">b</b></title><b>c</b>');
    expect(trimUnreadMarkup('<div class=a/><br/><div\nid="n"\tdata-q=1>')).toBe('<div class=a/><br/><div id="n">');
  });

  it("ends a title that is never closed where the next tag starts, instead of at the end of the page", () => {
    expect(trimUnreadMarkup(`<head><title>Gale to drive Nation'?' + q + '"><\\/SCRIPT>');\n<div id="main"><p>Story</p></div>`)).toBe(
      `<head><title>Gale to drive Nation'?' + q + '"></title><\\/SCRIPT>');\n<div id="main"><p>Story</p></div>`,
    );
    expect(trimUnreadMarkup('<title lang="en" data-x=1>Only a title')).toBe('<title lang="en" data-x=1>Only a title');
    expect(trimUnreadMarkup("<title>T</title><p>a</p>")).toBe("<title>T</title><p>a</p>");
  });

  it("leaves a tag it cannot read to its end as written, and handles pathological input in one pass", () => {
    expect(trimUnreadMarkup('<p data-x="never closed>text</p>')).toBe('<p data-x="never closed>text</p>');
    expect(trimUnreadMarkup('<p data-x=1 data-y')).toBe('<p data-x=1 data-y');
    const unclosedQuotes = '<a x="'.repeat(150_000);
    expect(trimUnreadMarkup(unclosedQuotes)).toBe(unclosedQuotes);
    const attributeStorm = `<a ${"b ".repeat(300_000)}href="/h">`;
    expect(trimUnreadMarkup(attributeStorm)).toBe('<a href="/h">');
    const selects = "<select>".repeat(150_000);
    expect(trimUnreadMarkup(selects)).toBe(selects);
    expect(trimUnreadMarkup("<".repeat(500_000))).toBe("<".repeat(500_000));
  });

  it("extraction still sees every attribute it reads after trimming", async () => {
    const html = `<html lang="de-AT"><head><title>T</title><meta name="description" content="D"><link rel="canonical" href="/c"></head><body>
      <div class="post">${paragraph("canal")}${paragraph("lock")}
      <p>See <a href="/more" title="More" onclick="track()">the annex</a> and <img src="/m.png" alt="Map" title="Map title" loading="lazy">.</p>
      <ol start="4" type="i"><li>Fourth step of the procedure, which the authority described in full, with costs, dates, and the names of those who signed it.</li></ol>
      <table><tr><td colspan="2" width="9">Wide</td></tr><tr><td>a</td><td>b</td></tr></table>
      <pre><code class="language-js" data-line="1">let x = 1;</code></pre>
      <p style="display:none" data-x="1">Hidden by style.</p><p aria-hidden="true">Hidden by aria.</p></div></body></html>`;
    const result = await extractHtml({ html, url: "https://example.com/a/", markdown: true });
    expect(result.language).toBe("de-AT");
    expect(result.description).toBe("D");
    expect(result.links).toContainEqual({ text: "the annex", url: "https://example.com/more" });
    expect(result.markdown).toContain('[the annex](https://example.com/more "More")');
    expect(result.markdown).toContain('![Map](https://example.com/m.png "Map title")');
    expect(result.markdown).toContain("4.  Fourth step");
    expect(result.markdown).toContain("| Wide | |");
    expect(result.markdown).toContain("```js");
    expect(result.text).not.toContain("Hidden by");
  });
});

describe("web/content-changes", () => {
  it("undoes a detection try exactly, so the next try reads the page as parsed", () => {
    const html = `<html><head><title>T</title></head><body><div id="nav-wrap" class="sidebar"><p>Links</p></div><div class="post">${paragraph("a")}${paragraph("b")}<form><p>f</p></form><div class="share">${paragraph("c")}</div></div><div>${paragraph("d")}</div></body></html>`;
    const document = parseHtmlDocument(html);
    const before = document.documentElement.outerHTML;
    const changes = new DomChanges();
    const content = detectMainContent(document, { useNames: true }, changes);
    expect(content).toBeDefined();
    expect(document.documentElement.outerHTML).not.toBe(before);
    changes.undo();
    expect(document.documentElement.outerHTML).toBe(before);
  });

  it("falls back to the whole body as parsed when both tries find too little (nothing a try moved or removed is lost)", async () => {
    const links = [1, 2, 3].map((n) => `<a href="/s/${n}">Story ${n}</a>`).join(" ");
    const { text, warnings } = await extractHtml({
      html: `<html><body><h1>Headline</h1><div class="story"><p>One short paragraph, with a comma or two, that scores as text.</p><div>${links}</div></div></body></html>`,
      url: "https://example.com/",
      markdown: false,
    });
    expect(warnings).toEqual([FALLBACK_WARNING]);
    expect(text).toBe("Headline\n\nOne short paragraph, with a comma or two, that scores as text.\n\nStory 1 Story 2 Story 3");
  });
});
