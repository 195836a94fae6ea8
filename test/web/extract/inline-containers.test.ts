/**
 * An inline element (a <font>, a <span>) that holds the article's paragraphs can be the content: inside a
 * layout cell that also holds a photo credit and section links, it is taken instead of the cell; never closed
 * round the article, it is taken instead of the whole-page fallback. An article split across cells still
 * comes back whole: blocks are climbed first.
 */
import { describe, expect, it } from "bun:test";
import { FALLBACK_WARNING, extractHtmlSync } from "../../../src/web/extract/extract.ts";

const paragraphs = (topic: string, count: number) =>
  Array.from({ length: count }, (_, i) => `<p>${topic} paragraph ${i + 1}: the council met on Tuesday, heard the engineers at length, and voted on the repairs, the budget and the timetable.</p>`).join("");
const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/news", markdown: false });

describe("inline containers", () => {
  it("are taken instead of the layout cell around them when they hold most of its prose", () => {
    const cell = `<td>Photo: City Hall archive, used with the kind permission of the photographer and the city's press office<br><font class="bodytext">${paragraphs("Bridge", 5)}</font><br><a href="/s">Sports</a> | <a href="/w">Weather</a></td>`;
    const { text } = read(`<html><body><table><tr><td><a href="/">Home</a></td>${cell}</tr></table></body></html>`);
    expect(text).toContain("Bridge paragraph 5");
    expect(text).not.toContain("Photo: City Hall archive");
  });

  it("are taken when a <font> never closed wraps the article and the body holds it", () => {
    const { text, warnings } = read(`<html><body><a href="/">Home</a> <a href="/n">News</a><hr><font size="3"><h2>Bridge repairs</h2>${paragraphs("Bridge", 4)}<hr><a href="/x">Back to top</a>`);
    expect(text).toContain("Bridge paragraph 4");
    expect(warnings).not.toContain(FALLBACK_WARNING);
  });

  it("do not break an article split across cells: the cells' common ancestor is still the content", () => {
    const cells = ["One", "Two", "Three", "Four"].map((part) => `<tr><td><font class="bodytext">${paragraphs(part, 3)}</font></td></tr>`).join("");
    const { text } = read(`<html><body><table>${cells}</table><div><a href="/a">Archive</a></div></body></html>`);
    for (const part of ["One", "Two", "Three", "Four"]) expect(text).toContain(`${part} paragraph 3`);
  });
});
