/**
 * Parsing for extraction (content-parse, html-parse): the source cut of what no result reads, the tree a
 * browser would build (one html, head and body; tables with their sections and rows; end tags that do not
 * reach past a table or cell), and tries undone on the same tree.
 */
import { describe, expect, it } from "bun:test";
import { getOuterHTML } from "domutils";
import { DomChanges } from "../../../src/web/extract/content-changes.ts";
import { detectMainContent } from "../../../src/web/extract/content-detect.ts";
import { closeUnclosedTitle, cutRawElements, parsePage } from "../../../src/web/extract/content-parse.ts";
import { elementChildrenOf, selectFirstIn, textOf, type Element } from "../../../src/web/extract/dom.ts";
import { extractHtml, FALLBACK_WARNING } from "../../../src/web/extract/extract.ts";

const paragraph = (topic: string) =>
  `<p>The ${topic} report, published on Monday by the regional authority, describes in some detail how the work was done, what it cost, and which of the findings the authors consider firm enough to act on this year.</p>`;

/** The element children's names of `element`, nested: "table(tbody(tr(td,td)))". */
function shape(element: Element): string {
  const children = elementChildrenOf(element);
  return children.length === 0 ? element.name : `${element.name}(${children.map(shape).join(",")})`;
}

describe("web/content-parse: the source", () => {
  it("cuts comments and raw-text elements, closing names in any case, an unclosed one to the end", () => {
    expect(cutRawElements("a<script>x<\/b>y</SCRIPT >b<!-- c -->d<style>s</style>e")).toBe("abde");
    expect(cutRawElements("keep<svg><text>t</text></svg>this<noscript>n</noscript>")).toBe("keepthis");
    expect(cutRawElements("start<script>never closed <p>lost</p>")).toBe("start");
    expect(cutRawElements("<scripts>kept</scripts>")).toBe("<scripts>kept</scripts>");
  });

  it("keeps the content of a <noscript> of prose (a script-rendered article's copy for readers without scripts), its raw elements cut", () => {
    const article = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i + 1} of the post explains what the new protection does, for whom, and at what cost to privacy.</p>`).join("");
    const source = `<div itemprop="articleBody"><script type="text/template">${article}</script><noscript>${article}<script>track()</script><img src="/p.gif"></noscript></div>`;
    expect(cutRawElements(source)).toBe(`<div itemprop="articleBody">${article}<img src="/p.gif"></div>`);
    // A short notice, or text without paragraphs, is still cut.
    expect(cutRawElements("a<noscript><p>Please enable JavaScript to view the comments powered by Disqus.</p></noscript>b")).toBe("ab");
  });

  it("ends a title that is never closed where the next tag starts, instead of at the end of the page", () => {
    expect(closeUnclosedTitle(`<head><title>Gale to drive Nation'?' + q + '"><\\/SCRIPT>');\n<div id="main"><p>Story</p></div>`)).toBe(
      `<head><title>Gale to drive Nation'?' + q + '"></title><\\/SCRIPT>');\n<div id="main"><p>Story</p></div>`,
    );
    expect(closeUnclosedTitle('<title lang="en">Only a title')).toBe('<title lang="en">Only a title');
    expect(closeUnclosedTitle("<title>T</title><p>a</p>")).toBe("<title>T</title><p>a</p>");
    expect(closeUnclosedTitle("<TITLE>T</TITLE ><p>a</p>")).toBe("<TITLE>T</TITLE ><p>a</p>");
  });

  it("takes an end tag that runs on into other letters (a crawl's damage) for text, not for the title's end", () => {
    const html = `<title id="t">Bush to Saudis - News</titlevalue="true" -->\n</head><body><div id="story">${paragraph("oil")}</div></body>`;
    expect(closeUnclosedTitle(html)).toContain("Bush to Saudis - News</title></titlevalue");
    const page = parsePage(closeUnclosedTitle(html));
    expect(textOf(selectFirstIn(page.head, "title") as Element)).toBe("Bush to Saudis - News");
    expect(textOf(page.body)).toContain("The oil report");
  });
});

describe("web/content-parse: the tree a browser builds", () => {
  it("gives every page one html, head and body, whatever tags it repeats or leaves out", () => {
    const twice = parsePage(`<!DOCTYPE html><html class="ie"><html lang="en"><head><title>T</title><meta name="a" content="b"></head><body class="x"><p>one</p><body><p>two</p></body></html>`);
    expect(shape(twice.root)).toBe("html(head(title,meta),body(p,p))");
    expect(twice.root.attribs.class).toBe("ie");
    expect(twice.body.attribs.class).toBe("x");
    const bare = parsePage(`<title>T</title><p>one</p>`);
    expect(shape(bare.root)).toBe("html(head(title),body(p))");
    const after = parsePage(`<html><head></head><body><p>one</p></body></html><p>two</p>`);
    expect(shape(after.root)).toBe("html(head,body(p,p))");
  });

  it("adds the sections and rows a browser adds to tables written without them", () => {
    const page = parsePage(`<table><tr><td>a</td><td>b</td></tr></table><table><td>c</td><td>d</td></table><table><thead><th>h</th></thead><tbody><tr><td>e</td></tr></tbody></table>`);
    expect(shape(page.body)).toBe("body(table(tbody(tr(td,td))),table(tbody(tr(td,td))),table(thead(tr(th)),tbody(tr(td))))");
  });

  it("does not let an end tag close what lies beyond the table or cell it is in", () => {
    // A stray </tr> and </div> inside a nested table's cell: a browser ignores both; closing through the
    // tables put the article's paragraphs loose in <body>.
    const html = `<table><tr><td><div id="story"><table><tr><td>photo</td></tr></tr></div></table>${paragraph("one")}${paragraph("two")}</div></td></tr></table>`;
    const story = selectFirstIn(parsePage(html).body, "#story") as Element;
    expect(shape(story)).toBe("div(table(tbody(tr(td))),p,p)");
  });

  it("still closes what an end tag closes in a browser: the nearest open element of that name within the cell", () => {
    const page = parsePage(`<table><tr><td><div class="a"><span>x<div class="b">y</div></span>z</div><p>after</td><td>next</td></tr></table>`);
    const cell = selectFirstIn(page.body, "td") as Element;
    expect(shape(cell)).toBe("td(div(span(div)),p)");
    expect(textOf(cell)).toBe("xyzafter");
  });
});

describe("web/content-parse: extraction's view", () => {
  it("extraction reads every attribute it needs (language, description, links, images, list starts, cell spans, code classes, hiding styles)", async () => {
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
    const page = parsePage(html);
    const before = getOuterHTML(page.root);
    const changes = new DomChanges();
    const content = detectMainContent(page.body, { useNames: true }, changes);
    expect(content).toBeDefined();
    expect(getOuterHTML(page.root)).not.toBe(before);
    changes.undo();
    expect(getOuterHTML(page.root)).toBe(before);
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

describe("ruby annotations", () => {
  it("the reading over a word (<rt>) and its fallback brackets (<rp>) are not text, closed or not", async () => {
    const sentence = (i: number) =>
      `<p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの<ruby>虐待<rt>ぎゃくたい</ruby>をなくすための<ruby>法律<rt>ほうりつ</rt></ruby>ができました。${i}番目の文です。親が子どもを教育するために、たたいたり蹴ったりする体罰を法律で禁止します。</p>`;
    const html = `<html><head><title>Law</title></head><body><article>${[1, 2, 3, 4].map(sentence).join("")}</article></body></html>`;
    const { text, markdown } = await extractHtml({ html, url: "https://example.com/a", markdown: true });
    expect(text).toContain("子どもへの虐待をなくすための法律ができました。1番目の文です。");
    expect(text).not.toContain("こ");
    expect(text).not.toContain("ぎゃくたい");
    expect(markdown).toContain("子どもへの虐待をなくすための法律ができました。");
    expect(markdown).not.toContain("(");
  });
});

describe("composed text", () => {
  it("a page written with decomposed letters is returned composed (NFC), in text and Markdown", async () => {
    const decomposed = "Pru\u0308fung der Kindersitze: Sicherheit, Bedienung und Ergonomie wurden gepru\u0308ft.";
    const html = `<html><head><title>Test</title></head><body><article>${[1, 2, 3].map((i) => `<p>${decomposed} Absatz ${i} mit weiteren Sa\u0308tzen, die den Test beschreiben und erkla\u0308ren.</p>`).join("")}</article></body></html>`;
    const { text, markdown } = await extractHtml({ html, url: "https://example.com/a", markdown: true });
    expect(text).toContain("Prüfung der Kindersitze");
    expect(text).toContain("geprüft.");
    expect(text).not.toContain("\u0308");
    expect(markdown).toContain("Prüfung der Kindersitze");
    expect(markdown).not.toContain("\u0308");
  });
});
