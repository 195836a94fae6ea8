/**
 * Lines of links loose at the end of the content (more headlines in the article's own table cell, no block of
 * their own for conditional cleaning to judge) are not the article's, one alone too ("Mehr: <a>…</a>" after the
 * story); a link line inside the text, link lines a sentence introduces ("… sign the petition:"), and a list the text
 * introduces are.
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

  it("are left out when only one, after a label ('Mehr:') too", () => {
    const one = read(page(`${story}<p><a href="/story/9">Other headline number 9 of the day</a></p>`));
    expect(one).toContain("Paragraph 5: the council met");
    expect(one).not.toContain("Other headline number 9");
    expect(read(page(`${story}<p>Mehr: <a href="/story/8">Other headline number 8 of the day</a></p>`))).not.toContain("Other headline number 8");
  });

  it("are kept when prose follows them, or when a sentence introduces them", () => {
    const inside = read(page(`${story}${[1, 2, 3].map(headline).join("")}<p>Paragraph 6: after the links, the article goes on at some length about the vote.</p>`));
    expect(inside).toContain("Other headline number 3");
    expect(inside).toContain("Paragraph 6");
    const introduced = read(page(`${story}<p>The council asks every resident to sign the petition for the repairs:</p><p><a href="https://example.org/petition">https://example.org/petition</a></p>`));
    expect(introduced).toContain("https://example.org/petition");
  });

  it("leave a list at the end to conditional cleaning: a list the text introduces stays", () => {
    const list = `<p>The documents the council published:</p><ul>${[1, 2, 3, 4].map((n) => `<li><a href="/doc/${n}">Council document number ${n}</a></li>`).join("")}</ul>`;
    expect(read(page(`${story}${list}`))).toContain("Council document number 4");
  });
});
