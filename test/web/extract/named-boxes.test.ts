/**
 * Boxes whose class or id names them as chrome: an affiliate note ("affiliateText"), an author box of the Simple Author
 * Box plugin ("saboxplugin-wrap"), a promotional link box ("linkbox_large"), a table of contents ("toc_container",
 * "ez-toc-container"). The article around them stays, and so does a heading whose link back to the contents is named
 * "toc-backref".
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the guide says, plainly and at length, how to decant a red wine, and why.</p>`;

function textOf(inner: string): string {
  const html = `<html><head><title>Decanting</title></head><body><div id="nav"><a href="/">Home</a></div><article><div class="entry-content">${inner}</div></article></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/", markdown: false }).text;
}

describe("boxes named as chrome", () => {
  it("removes an affiliate note, an author box, a link box and a table of contents", () => {
    const text = textOf(
      `<div id="ez-toc-container"><p class="ez-toc-title">Inhaltsverzeichnis</p><ul><li><a href="#a">Warum dekantieren</a></li></ul></div>` +
        `${para(1)}${para(2)}<p><span class="linkbox_large"><strong>DHB jetzt auch digital!</strong> Einfach hier klicken.</span></p>${para(3)}${para(4)}` +
        `<div id="affiliateText"><p>Geld erhalten wir, wenn Sie dieses Produkt kaufen; das beeinflusst unsere Empfehlung nicht.</p></div>` +
        `<div class="saboxplugin-wrap"><div class="saboxplugin-desc"><p>Ich mag jede Art von Fotografie, aber ein Mensch muss mit drauf sein.</p></div></div>`,
    );
    expect(text).toContain("Paragraph 1 of the guide");
    expect(text).toContain("Paragraph 4 of the guide");
    expect(text).not.toContain("Inhaltsverzeichnis");
    expect(text).not.toContain("DHB jetzt auch digital");
    expect(text).not.toContain("Geld erhalten wir");
    expect(text).not.toContain("Ich mag jede Art von Fotografie");
  });

  it("keeps a heading whose link back to the contents is named toc-backref", () => {
    const text = textOf(`${para(1)}<h2><a class="toc-backref" href="#id1">Why decant at all</a></h2>${para(2)}${para(3)}`);
    expect(text).toContain("Why decant at all");
  });
});
