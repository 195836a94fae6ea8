/**
 * A list the text introduces (the text just before it ends with a colon: "Previous interviews in the
 * series:", "The winners include:<br>") belongs to the text, and so do the lists that follow it, even when
 * every item is a link or the list's own score is below zero; Readability's rules removed them. A link list
 * nobody introduces is still removed.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the interview notes explains, at some length and in plain words, what was said and why it matters.</p>`;
const links = (label: string) => `<ul>${Array.from({ length: 6 }, (_, i) => `<li><a href="/${label}${i}">${label} episode ${i} on another theme</a></li>`).join("")}</ul>`;
const read = (article: string) =>
  extractHtmlSync({ html: `<html><body><div id="nav"><a href="/">Home</a></div><div class="post">${article}</div></body></html>`, url: "https://example.com/a", markdown: false }).text;

describe("lists introduced by the text", () => {
  it("are kept though all links", () => {
    const text = read(`${para(1)}${para(2)}<p>Previous interviews in the series:</p>${links("Interview")}`);
    expect(text).toContain("Interview episode 0");
    expect(text).toContain("Interview episode 5");
  });

  it("are kept after a line break, and so are the lists that follow them", () => {
    const winners = Array.from({ length: 5 }, (_, i) => `<ul><li><b><a href="/w${i}">Winner ${i}</a></b> - a map of the region showing rainfall and wells drawn from village surveys</li></ul>`).join("");
    const text = read(`${para(1)}${para(2)}<div>Each winner received a grant. The winners include:<br><br>${winners}</div>`);
    expect(text).toContain("Winner 0 - a map");
    expect(text).toContain("Winner 4 - a map");
  });

  it("unlike a link list nobody introduces", () => {
    const text = read(`${para(1)}${para(2)}<p>That was all for this week.</p>${links("Other")}`);
    expect(text).toContain("Paragraph 2 of the interview");
    expect(text).not.toContain("Other episode 0");
  });
});
