/**
 * Class words with "hidden" in them that leave the element shown on a desktop screen (hidden on phones or in print,
 * or a part of it hidden: Drupal's "field--label-hidden" on every field whose label is not shown) do not make the
 * element page chrome: the article in such a field came back as its teaser alone (trafilatura's set, fdpbt.de).
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const paragraph = (n: number) => `<p>Paragraph ${n} of the statement sets out the group's case in plain words, at length, and with reasons, so it reads as prose.</p>`;
const paragraphs = (count: number) => Array.from({ length: count }, (_, i) => paragraph(i + 1)).join("");
const teaser = `<div class="teaser"><p>The teaser above the statement says in a few sentences what the statement is about. It is long enough to stand for the page on its own, which it must not do. It names the group, the day and the question, and then it ends.</p></div>`;
const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;

describe("class words naming an element hidden only in part", () => {
  it("keep a field whose label is hidden", () => {
    const html = `<html><body><main><div class="region">${teaser}<div class="field field--name-body field--label-hidden">${paragraphs(8)}</div></div></main></body></html>`;
    const text = read(html);
    expect(text).toContain("Paragraph 1 of the statement");
    expect(text).toContain("Paragraph 8 of the statement");
  });

  it("keep a block hidden only on small screens", () => {
    const html = `<html><body><main><div class="region">${teaser}<div class="col hidden-xs">${paragraphs(8)}</div></div></main></body></html>`;
    expect(read(html)).toContain("Paragraph 8 of the statement");
  });

  it("still drop a block hidden on a desktop screen", () => {
    const html = `<html><body><main><div class="region"><div class="story">${paragraphs(6)}</div><div class="col hidden-lg"><p>A copy for phones of the same story that desktop readers never see on the page at all.</p></div></div></main></body></html>`;
    const text = read(html);
    expect(text).toContain("Paragraph 6 of the statement");
    expect(text).not.toContain("A copy for phones");
  });
});
