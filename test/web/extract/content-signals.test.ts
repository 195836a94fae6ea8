import { describe, expect, it } from "bun:test";
import { CHROME_NAMED, COMMENT_NAMED, CONTENT_NAMED, LAYOUT_NAMED, NEVER_CONTENT, classifyElement, weighNames } from "../../../src/web/extract/content-signals.ts";
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

  // Classes that say something is shown ("field--label-hidden": the field's label is hidden, its text is not) weigh nothing; "hidden" alone still weighs against.
  it("weighs a shown-hidden token like any neutral class, and a plain hidden one against", () => {
    expect(weighNames(new Element("div", { class: "field field--label-hidden" }))).toBe(0);
    expect(weighNames(new Element("div", { class: "overflow-hidden lazy-hidden" }))).toBe(0);
    expect(weighNames(new Element("div", { class: "hidden-box" }))).toBe(-25);
  });

  // A table of contents is chrome by its name (its entries need not be link-dense to go); a heading's link back to it is not.
  it("names a table of contents as chrome, not a toc-backref link", () => {
    for (const named of [{ id: "ez-toc-container" }, { id: "toc_container" }, { class: "table-of-contents" }] as Record<string, string>[]) expect(classifyAttributes(attrs(named))).toBe(CHROME_NAMED);
    expect(classifyAttributes(attrs({ class: "toc-backref" }))).toBe(0);
  });
});
