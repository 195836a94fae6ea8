/**
 * The placeholder a consent plugin puts where an embedded post or video would be ("Klicken Sie auf den Button, um den
 * Inhalt zu laden") is not the article's text, on the detected content and on a selector's scope alike.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the story says, plainly and at length, which firms check temperatures, and why.</p>`;
const html = `<html><head><title>Fever checks</title></head><body><div class="entry-content">${para(1)}${para(2)}<div class="BorlabsCookie"><div class="_brlbs-content-blocker"><div class="_brlbs-embed"><p>Klicken Sie auf den unteren Button, um den Inhalt von Twitter zu laden, und stimmen Sie der Datenschutzerklärung zu.</p></div></div></div>${para(3)}<div class="embed-privacy-container"><p>Wir respektieren deine Privatsphäre: dieser Inhalt wird erst nach deiner Zustimmung geladen.</p></div>${para(4)}</div></body></html>`;

describe("a consent placeholder", () => {
  it("is removed from the detected content", () => {
    const text = extractHtmlSync({ html, url: "https://example.com/", markdown: false }).text;
    expect(text).toContain("Paragraph 4 of the story");
    expect(text).not.toContain("Klicken Sie auf den unteren Button");
    expect(text).not.toContain("Wir respektieren deine Privatsphäre");
  });

  it("is removed from a selector's scope", () => {
    const text = extractHtmlSync({ html, url: "https://example.com/", markdown: false, selector: ".entry-content" }).text;
    expect(text).toContain("Paragraph 4 of the story");
    expect(text).not.toContain("Klicken Sie auf den unteren Button");
  });
});
