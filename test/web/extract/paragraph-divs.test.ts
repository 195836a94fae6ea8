/**
 * A div holding only inline content is a paragraph (Readability turns such divs into paragraphs before
 * cleaning): a sentence in a div whose link is a quarter of it is kept, not judged a link-dense block.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the note tells readers, plainly and at some length, what changes for them this term.</p>`;

describe("divs written as paragraphs", () => {
  it("are kept though a quarter of their text is a link", () => {
    const html = `<html><body><div id="nav"><a href="/">Home</a></div><div class="post">${para(1)}<p></p><div>Today this is official: students read for free by <a href="/student">submitting their details here</a>.</div><p></p>${para(2)}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Paragraph 2 of the note");
    expect(text).toContain("Today this is official: students read for free by submitting their details here.");
  });
});
