/**
 * An unnamed block chosen inside a block named as content (its parent or grandparent) widens to that block:
 * the intro paragraphs beside the chosen div belong to the post. A link-dense named block is not taken.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the race report tells, plainly and at length, who led, who faded and how the record fell.</p>`;

describe("a named parent of the chosen block", () => {
  it("is taken with the text beside the chosen block", () => {
    const body = `<div itemprop="articleBody"><div class="intro">Kebede has won the marathon in a course record time, a minute off the old mark.</div><br><div>${[1, 2, 3, 4, 5, 6].map(para).join("")}</div></div>`;
    const html = `<html><body><div id="nav"><a href="/">Home</a></div><div class="wrapper">${body}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Kebede has won the marathon");
    expect(text).toContain("Paragraph 6 of the race report");
  });
});
