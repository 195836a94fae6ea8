/**
 * A chosen block that holds little of the page's prose widens to its nearest ancestor holding most of it: older
 * pages spread their text over sibling tables and lists, and the best-scored cell alone lost the rest. A block
 * named as content (or an article), or holding one with most of its text, marks where the content ends and is
 * not widened; a small named block inside it (a caption, a note) does not.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Part ${n}, the longest, tells how the hall was planned, paid for, built, opened, and used, year by year, by its members.</p>`;
const item = (n: number) => `<li>Item ${n} of the catalogue lists one more book from the shelves</li>`;
const list = (from: number) => `<table><tr><td><ul>${Array.from({ length: 8 }, (_, i) => item(from + i)).join("")}</ul></td></tr></table>`;
const menu = `<table><tr><td>${Array.from({ length: 10 }, (_, i) => `<a href="/p${i}">Page ${i}</a><br>`).join("")}</td></tr></table>`;
const blocks = (cell: string) => `${menu}<table><tr>${cell}${para(1)}${para(2)}${para(3)}</td></tr></table>${list(1)}${list(11)}${list(21)}`;
const page = (cell: string) => `<html><body><div id="wrap">${blocks(cell)}</div></body></html>`;
const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;

describe("widening to the page's prose", () => {
  it("takes the sibling tables that hold most of the page's text", () => {
    const text = read(page("<td>"));
    expect(text).toContain("Part 3, the longest");
    expect(text).toContain("Item 1 of the catalogue");
    expect(text).toContain("Item 28 of the catalogue");
    expect(text).not.toContain("Page 3");
  });

  it("widens to the body itself when the blocks are loose under it", () => {
    const text = read(`<html><body>${blocks("<td>")}</body></html>`);
    expect(text).toContain("Part 3, the longest");
    expect(text).toContain("Item 28 of the catalogue");
  });

  it("widens past a small block inside it that is named as content", () => {
    const text = read(page('<td><div class="text">Notes from the hall</div>'));
    expect(text).toContain("Part 3, the longest");
    expect(text).toContain("Item 28 of the catalogue");
  });

  it("stops at a block named as the content", () => {
    const text = read(page('<td class="entry-content">'));
    expect(text).toContain("Part 3, the longest");
    expect(text).not.toContain("Item 1 of the catalogue");
  });
});
