/**
 * A block whose class names it a disclaimer or an affiliate disclosure ("aawp-disclaimer", "editorial-disclosure") is
 * page chrome, as the sets' truths have it; the article around it stays.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the review says, plainly and at length, which cat toys last, and why.</p>`;

describe("a disclaimer named so", () => {
  it("is removed from the content", () => {
    const html = `<html><head><title>Cat toys</title></head><body><article><h1>Cat toys</h1><section class="editorial-disclosure"><p>This post contains references to products from one or more of our advertisers; we may receive a commission.</p></section>${[1, 2, 3, 4].map(para).join("")}<p class="aawp-disclaimer">Bei den Verlinkungen handelt es sich um Affiliate-Links; für einen Kauf erhalten wir eine Provision.</p></article></body></html>`;
    const text = extractHtmlSync({ html, url: "https://example.com/", markdown: false }).text;
    expect(text).toContain("Paragraph 4 of the review");
    expect(text).not.toContain("This post contains references");
    expect(text).not.toContain("Bei den Verlinkungen");
  });
});
