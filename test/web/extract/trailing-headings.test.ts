/**
 * Headings that end the content with nothing after them are the titles of boxes that cleaning removed or that a
 * script was to fill ("Audios and videos on the topic", "Teilnehmende Blogs:"): they go, and so does a short line that
 * ends the content with a colon ("Related links:"). A heading followed by text, a sentence set as a heading (a pull
 * quote) and a heading that wraps paragraphs stay.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the report tells, plainly and at length, how the dam was built and who paid for it.</p>`;

function textOf(inner: string): string {
  const html = `<html><head><title>The dam</title></head><body><div id="nav"><a href="/">Home</a></div><div class="story">${inner}</div></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("headings at the end of the content", () => {
  it("go when nothing follows them", () => {
    const text = textOf(`${para(1)}<h2>The first winter</h2>${para(2)}${para(3)}<h4>Audios and videos on the topic</h4><h3>Teilnehmende Blogs:</h3>`);
    expect(text).toContain("The first winter");
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("Audios and videos on the topic");
    expect(text).not.toContain("Teilnehmende Blogs");
  });

  it("stay when they are sentences, or wrap paragraphs", () => {
    const quote = textOf(`${para(1)}${para(2)}<h4>Die Erzählung ist grauenhaft. Es stützt seine Version.</h4>`);
    expect(quote).toContain("Es stützt seine Version.");
    const wrapping = textOf(`${para(1)}${para(2)}<h3>Watering the tree<p>A drip pan should sit on the floor under the butt of the tree so that no water reaches the carpet.</p></h3>`);
    expect(wrapping).toContain("A drip pan should sit on the floor");
  });
});

describe("a label line at the end of the content", () => {
  it("goes when it ends with a colon and nothing follows it", () => {
    const text = textOf(`${para(1)}${para(2)}${para(3)}<p><strong>Related links:</strong></p>`);
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("Related links:");
  });

  it("stays when text follows it", () => {
    const text = textOf(`${para(1)}${para(2)}<p><strong>The costs:</strong></p>${para(3)}`);
    expect(text).toContain("The costs:");
  });
});
