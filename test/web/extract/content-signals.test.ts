import { describe, expect, it } from "bun:test";
import { CHROME_NAMED, COMMENT_NAMED, CONTENT_NAMED, LAYOUT_NAMED, NEVER_CONTENT, classifyElement } from "../../../src/web/extract/content-signals.ts";
import { Element } from "../../../src/web/extract/dom.ts";

const classifyAttributes = (attribs: Record<string, string>) => classifyElement(new Element("div", attribs));
const attrs = (pairs: Record<string, string>) => pairs;

describe("web/content-signals", () => {
  // Class and id words are remembered per string; what the other attributes add is not.
  it("gives the same answer for the same words whatever else the element carries, asked again", () => {
    for (let round = 0; round < 2; round++) {
      expect(classifyAttributes(attrs({ class: "comment-list" }))).toBe(CHROME_NAMED | COMMENT_NAMED);
      expect(classifyAttributes(attrs({ class: "related-list" }))).toBe(CHROME_NAMED);
      expect(classifyAttributes(attrs({ class: "comment-list", itemprop: "articleBody" }))).toBe(CONTENT_NAMED);
      expect(classifyAttributes(attrs({ class: "comment-list", "aria-hidden": "true" }))).toBe(NEVER_CONTENT);
      expect(classifyAttributes(attrs({ class: "comment-list", id: "main-article-body" }))).toBe(classifyAttributes(attrs({ id: "comment-list main-article-body" })));
      expect(classifyAttributes(attrs({ class: "cookie-banner" }))).toBe(NEVER_CONTENT);
      expect(classifyAttributes(attrs({ class: "entry-content" }))).toBe(CONTENT_NAMED);
      expect(classifyAttributes(attrs({ class: "clearfix" }))).toBe(0);
      // A copyright notice and WordPress's "posted in ... filed under" line are the page's, not the article's.
      expect(classifyAttributes(attrs({ id: "c_copyright" }))).toBe(CHROME_NAMED);
      expect(classifyAttributes(attrs({ class: "postmetadata alt" }))).toBe(CHROME_NAMED);
    }
  });

  it("answers right after many different words have been seen", () => {
    for (let i = 0; i < 12_000; i++) classifyAttributes(attrs({ class: `box-${i}` }));
    expect(classifyAttributes(attrs({ class: "sidebar" }))).toBe(CHROME_NAMED | LAYOUT_NAMED);
    expect(classifyAttributes(attrs({ class: "box-11999" }))).toBe(0);
  });
});
