/**
 * Photo credits inside the chosen content are the picture's, not the article's: a short element named as a
 * credit, or a short line that opens as one ("Foto: …", "Photo by …", "© …"), is removed. Prose that merely
 * starts with such a word, long lines, and a credit inside a <figcaption> (part of the caption, which stays) stay.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the report tells, plainly and at length, how the dam was built and who paid for it.</p>`;

function textOf(inner: string): string {
  const html = `<html><body><div id="nav"><a href="/">Home</a></div><div class="story">${inner}</div></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("photo credits in the content", () => {
  it("removes a short credit line and an element named as a credit", () => {
    const text = textOf(`${para(1)}<div class="pic"><img src="/d.jpg"><p>Foto: Marco Roepers</p><span class="photo-credit">Jane Doe/Agency</span></div>${para(2)}${para(3)}<p>Photo by James Martin</p>${para(4)}`);
    expect(text).toContain("Paragraph 1 of the report");
    expect(text).toContain("Paragraph 4 of the report");
    expect(text).not.toContain("Marco Roepers");
    expect(text).not.toContain("Jane Doe/Agency");
    expect(text).not.toContain("James Martin");
  });

  it("keeps prose that opens with a credit word but is no credit, and long lines", () => {
    const long = `Source: the ministry's own figures, published on Monday, show that the dam cost twice what was planned, and that the overrun fell on the region's budget.`;
    const text = textOf(`${para(1)}<p>Photos of the flooded valley were shown at the hearing.</p>${para(2)}<p>${long}</p>${para(3)}`);
    expect(text).toContain("Photos of the flooded valley were shown at the hearing.");
    expect(text).toContain(long);
  });

  it("keeps a credit inside a figure's caption, as the caption stays", () => {
    const text = textOf(`${para(1)}<figure><img src="/d.jpg"><figcaption>The dam at dusk <span class="credit">Photo by Jane Doe/Agency</span></figcaption></figure>${para(2)}${para(3)}`);
    expect(text).toContain("The dam at dusk");
    expect(text).toContain("Photo by Jane Doe/Agency");
  });
});
