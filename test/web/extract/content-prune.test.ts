import { describe, expect, it } from "bun:test";
import { comparePrunedParse } from "../../../src/web/extract/content-prune-check.ts";
import { pruneDroppedSubtrees } from "../../../src/web/extract/content-prune.ts";
import { extractHtml } from "../../../src/web/extract/extract.ts";

const page = (body: string) => `<html><head><title>T</title></head><body>${body}</body></html>`;

/** Prunes `body`'s page, checks the parse against happy-dom's parse of the whole page, returns the pruned body. */
function prune(body: string): string {
  const whole = page(body);
  const pruned = pruneDroppedSubtrees(whole);
  expect(comparePrunedParse(whole, pruned)).toEqual([]);
  return pruned.slice(pruned.indexOf("<body>") + 6, pruned.lastIndexOf("</body>"));
}

const paragraph = (topic: string) =>
  `<p>The ${topic} report, published on Monday by the regional authority, describes in some detail how the work was done, what it cost, and which of the findings the authors consider firm enough to act on this year.</p>`;

describe("web/content-prune", () => {
  it("empties navigation, hidden and chrome-named subtrees, keeping the elements themselves", () => {
    expect(prune('<nav><ul><li><a href="/">Home</a></li></ul></nav><div class="sidebar"><p>Ads</p></div><div style="display:none"><p>x</p></div><p>Text</p>')).toBe(
      '<nav></nav><div class="sidebar"></div><div style="display:none"></div><p>Text</p>',
    );
    expect(prune('<div role="navigation"><a href="/a">A</a></div><aside><p>Aside</p></aside><div aria-hidden="true"><p>h</p></div><p>Text</p>')).toBe(
      '<div role="navigation"></div><aside></aside><div aria-hidden="true"></div><p>Text</p>',
    );
  });

  it("keeps chrome-named subtrees holding an h1 or content named as such, and never empties an h1", () => {
    const holding = '<div class="share-wrap"><div class="article-body"><p>Body</p></div></div><div class="sidebar"><h1>Headline</h1></div><h1 class="hidden">Site</h1>';
    expect(prune(holding)).toBe(holding);
    const hiddenWithHeadline = '<div hidden><h1>Headline</h1><p>x</p></div>';
    expect(prune(hiddenWithHeadline)).toBe(hiddenWithHeadline);
  });

  it("ends a subtree where happy-dom does: implied ends, ancestors' end tags, nested links", () => {
    // li ended by the next li and by the list's end tag
    expect(prune('<ul><li class="comment">One<li class="comment">Two</ul><p>After</p>')).toBe('<ul><li class="comment"><li class="comment"></ul><p>After</p>');
    // (happy-dom, unlike a browser, nests an li in an open p: the second li is inside the first)
    expect(prune('<ul><li class="comment"><p>One<li>Two</ul><p>After</p>')).toBe('<ul><li class="comment"></ul><p>After</p>');
    // p ended by a block start tag
    expect(prune('<p class="share">Share<div>Kept after</div>')).toBe('<p class="share"><div>Kept after</div>');
    // a link ended by a nested link's start tag
    expect(prune('<a class="share" href="/s">Share <a href="/x">Kept link</a> tail')).toBe('<a class="share" href="/s"><a href="/x">Kept link</a> tail');
    // stray end tags inside, unclosed elements inside, and an end tag with junk (text to happy-dom)
    expect(prune('<div><div class="sidebar"><span>a</b></span><div>unclosed</div></div>b</div><p>c</p>')).toBe('<div><div class="sidebar"></div>b</div><p>c</p>');
    expect(prune('<div class="sidebar">x</div class="y"><p>still inside</p></div><p>out</p>')).toBe('<div class="sidebar"></div><p>out</p>');
  });

  it("keeps a subtree whose content happy-dom would place outside it, and one it cannot judge", () => {
    const fostered = '<div class="related"><table><div>moved before the table</div><tr><td>c</td></tr></table></div>';
    expect(prune(fostered)).toBe(fostered);
    const entity = '<div class="side&#98;ar"><p>x</p></div>';
    expect(prune(entity)).toBe(entity);
  });

  it("stops pruning at markup it does not model, and never prunes the head or an unclosed subtree", () => {
    const unreadable = '<div class="sidebar"><p title="never closed>x</p></div><nav>n</nav>';
    expect(prune(unreadable)).toBe(unreadable);
    const bang = '<![CDATA[ x ]]><nav>n</nav>';
    expect(prune(bang)).toBe(bang);
    const secondBody = '<body><nav>n</nav>';
    expect(prune(secondBody)).toBe(secondBody);
    const unclosed = '<body><div class="sidebar"><p>to the end';
    expect(pruneDroppedSubtrees(unclosed)).toBe(unclosed);
    const head = '<html><head><title>T</title><meta name="description" content="d"></head><body><nav>n</nav></body></html>';
    expect(pruneDroppedSubtrees(head)).toBe('<html><head><title>T</title><meta name="description" content="d"></head><body><nav></nav></body></html>');
  });

  it("handles deep and malformed pages in one pass", () => {
    const deepStray = `<body>${"<div>".repeat(50_000)}${"</x>".repeat(50_000)}`;
    expect(pruneDroppedSubtrees(deepStray)).toBe(deepStray);
    const nestedChrome = `<body>${'<a class="share" href="/s">'.repeat(50_000)}`;
    expect(pruneDroppedSubtrees(nestedChrome)).toBe(nestedChrome);
    const regions = `<body>${'<div class="sidebar"><p>x</div>'.repeat(50_000)}</body>`;
    expect(pruneDroppedSubtrees(regions)).toBe(`<body>${'<div class="sidebar"></div>'.repeat(50_000)}</body>`);
  });

  it("a page the first try finds too little in is read whole by the later tries", async () => {
    const result = await extractHtml({
      html: page(`<div class="related">${paragraph("comment")}${paragraph("reply")}</div><p>Short.</p>`),
      url: "https://example.com/",
      markdown: false,
    });
    expect(result.text).toContain("The comment report");
    expect(result.text).toContain("The reply report");
  });

  it("for the try that ignores names, empties only what is never content", () => {
    const body = '<nav><a href="/">Home</a></nav><div class="sidebar"><p>Kept</p></div><div hidden><p>x</p></div><aside><p>a</p></aside><p>Text</p>';
    const whole = page(body);
    const pruned = pruneDroppedSubtrees(whole, { chromeNamed: false });
    expect(comparePrunedParse(whole, pruned, { chromeNamed: false })).toEqual([]);
    expect(pruned).toContain('<nav></nav><div class="sidebar"><p>Kept</p></div><div hidden></div><aside></aside><p>Text</p>');
    // The check itself refuses a chrome-named element emptied for that try.
    expect(comparePrunedParse(whole, pruneDroppedSubtrees(whole), { chromeNamed: false })).not.toEqual([]);
  });

  it("the second try reads chrome-named content but never navigation or hidden text", async () => {
    const result = await extractHtml({
      html: page(`<nav><p>${"Menu entry words ".repeat(30)}</p></nav><div hidden>${paragraph("hidden")}</div><div class="related">${paragraph("comment")}${paragraph("reply")}</div><p>Short.</p>`),
      url: "https://example.com/",
      markdown: false,
    });
    expect(result.text).toContain("The reply report");
    expect(result.text).not.toContain("Menu entry");
    expect(result.text).not.toContain("The hidden report");
  });
});
