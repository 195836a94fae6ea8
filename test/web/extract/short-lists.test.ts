/**
 * A short list inside the article (two items of a sentence each) is the article's: a list's base score (-3)
 * ranks content candidates, and counted in the cleaning's "names and score below zero" rule it removed every
 * list of one or two short items.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the weekly notes says, in plain words, what the teams shipped and what comes next.</p>`;

describe("short lists in the article", () => {
  it("are kept", () => {
    const list = `<ul><li>Neil has patches up to improve the tab unloader</li><li>The sync team landed the new engine today</li></ul>`;
    const html = `<html><body><div id="nav"><a href="/">Home</a></div><div class="post">${para(1)}${para(2)}${list}${para(3)}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Paragraph 3 of the weekly notes");
    expect(text).toContain("Neil has patches up to improve the tab unloader");
  });
});
