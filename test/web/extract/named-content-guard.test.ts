/**
 * A block named as content ("post", "entry-content") that holds a real share of the content's prose is not
 * removed by cleaning's counting rules: a links-roundup post (each line a linked headline and a remark)
 * went over the link-density limit, and the author box beside it came back as the page's content; nor is a list
 * that makes up the bulk of such a block.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const item = (n: number) => `<li><a href="/story${n}">Linked headline number ${n} about a strange policy and its critics</a> – a remark on it.</li>`;
const post = `<div class="post"><h2>Quickies</h2><div class="entry-content"><p>On this day long ago the society was formed; take care if you are in the storm's path.</p><ul>${[1, 2, 3, 4, 5].map(item).join("")}</ul></div></div>`;
const author = `<div class="author-box"><h3>About the author</h3><p>Mary is a scientist who works on drugs you have hopefully never heard of. She enjoys cooking to blue grass music, messing with her cats, and hosting the book club. She was born in the South but loves living in New England, despite the lack of chocolate chip pizza.</p></div>`;

describe("blocks named as content", () => {
  it("survive cleaning's link-density rule when they hold a real share of the content", () => {
    const html = `<html><body><div id="nav"><a href="/">Home</a></div><div id="content">${post}${author}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("On this day long ago");
  });

  it("keep a list that is the bulk of them, though every line is a linked headline", () => {
    const html = `<html><body><div id="nav"><a href="/">Home</a></div><div id="content">${post}${author}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Linked headline number 1");
    expect(text).toContain("Linked headline number 5");
  });
});
