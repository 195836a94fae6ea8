/**
 * Lines of links loose at the end of the content (more headlines in the article's own table cell, no block of
 * their own for conditional cleaning to judge) are not the article's; a link line inside the text, a couple of
 * links at the end, and a list the text introduces are.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const story = [1, 2, 3, 4, 5]
  .map((n) => `<p>Paragraph ${n}: the council met on Tuesday, heard the engineers, and voted on the bridge repairs after a long debate.</p>`)
  .join("");
const headline = (n: number) => `<span class="newslist"><img src="/arrow.gif">&nbsp;<a href="/story/${n}">Other headline number ${n} of the day</a></span><br>`;
const page = (cell: string) =>
  `<html><head><title>Bridge</title></head><body><table><tr><td><table><tr><td>${cell}</td></tr></table></td><td><a href="/a">A</a> <a href="/b">B</a></td></tr></table></body></html>`;
const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/news", markdown: false }).text;

describe("link lines at the end of the content", () => {
  it("are left out when there are several and nothing but links follows the last prose", () => {
    const text = read(page(`${story}<hr><img src="/bar.gif"><br>${[1, 2, 3, 4, 5, 6].map(headline).join("")}`));
    expect(text).toContain("Paragraph 5: the council met");
    expect(text).not.toContain("Other headline");
  });

  it("are kept when only two, or when prose follows them", () => {
    expect(read(page(`${story}${[1, 2].map(headline).join("")}`))).toContain("Other headline number 2");
    const inside = read(page(`${story}${[1, 2, 3].map(headline).join("")}<p>Paragraph 6: after the links, the article goes on at some length about the vote.</p>`));
    expect(inside).toContain("Other headline number 3");
    expect(inside).toContain("Paragraph 6");
  });

  it("leave a list at the end to conditional cleaning: a list the text introduces stays", () => {
    const list = `<p>The documents the council published:</p><ul>${[1, 2, 3, 4].map((n) => `<li><a href="/doc/${n}">Council document number ${n}</a></li>`).join("")}</ul>`;
    expect(read(page(`${story}${list}`))).toContain("Council document number 4");
  });
});
