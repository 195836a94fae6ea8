/**
 * An empty <p> (spacing in old templates, &nbsp; and nothing else) is no paragraph in conditional cleaning's counts:
 * two of them beside four photos and their caption made an image strip look like text (3 paragraphs for 4 images) and kept it.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const story = [1, 2, 3, 4, 5]
  .map((n) => `<p>Paragraph ${n}: the bridge opened to traffic on this day, with little fanfare, and the ceremony came months later.</p>`)
  .join("");
const strip = `<div class="caption-centered">${[1, 2, 3, 4].map((n) => `<img src="/p${n}.jpg">`).join(" ")}<p>1938: archive numbers 1 to 4.</p><p></p><p>&nbsp;</p></div>`;

describe("empty paragraphs", () => {
  it("do not count as paragraphs: an image strip padded with empty ones is still cleaned away", () => {
    const { text } = extractHtmlSync({ html: `<html><body><div class="entry">${story}${strip}</div></body></html>`, url: "https://example.com/", markdown: false });
    expect(text).toContain("Paragraph 5: the bridge");
    expect(text).not.toContain("archive numbers");
  });
});
