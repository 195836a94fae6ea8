/**
 * A line pointing to other articles inside the chosen content ("Czytaj też: <a>…</a>", "Lesen Sie auch", a box
 * headed "Ähnliche Beiträge") is removed: its words alone, or its words and mostly links after them. Prose that
 * opens with the same words, and English "Read more" / "Related:" lines (kept by Dragnet's truths), stay. A line that
 * is only an advertisement's label ("- Anzeige -") or a page control's ("Drucken", "Zur Übersicht") goes too.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the report tells, plainly and at length, how the dam was built and who paid for it.</p>`;

function textOf(inner: string): string {
  const html = `<html><body><div id="nav"><a href="/">Home</a></div><div class="story">${inner}</div></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("pointers to other articles in the content", () => {
  it("removes a pointer line with its link, and a heading over a box of links", () => {
    const text = textOf(
      `${para(1)}<p>Czytaj też: <a href="/b">Komu dać superbroń?</a></p>${para(2)}<h4>Ähnliche Beiträge</h4>${para(3)}<p><strong>Lesen Sie auch:</strong> <a href="/c">Der Staudamm im Winter</a></p>${para(4)}`,
    );
    expect(text).toContain("Paragraph 1 of the report");
    expect(text).toContain("Paragraph 4 of the report");
    expect(text).not.toContain("Komu dać superbroń");
    expect(text).not.toContain("Ähnliche Beiträge");
    expect(text).not.toContain("Der Staudamm im Winter");
  });

  it("keeps prose that opens with the same words, and English read-more and related lines", () => {
    const prose = "Lesen Sie auch die Begründung des Gerichts, die der Verband am Montag veröffentlicht hat.";
    const text = textOf(`${para(1)}<p>${prose}</p>${para(2)}<p>Related: <a href="/d">The dam's first winter</a></p>${para(3)}<p><a href="/e">[Read More]</a></p>${para(4)}`);
    expect(text).toContain(prose);
    expect(text).toContain("The dam's first winter");
    expect(text).toContain("[Read More]");
  });

  it("removes a line that is only an advertisement's label, and keeps prose that names one", () => {
    const prose = "Anzeige: Der Verband hat die Stadt wegen des Staudamms verklagt, und das Gericht gibt ihm recht.";
    const text = textOf(`${para(1)}<div class="slot"><p>- Anzeige -</p></div>${para(2)}<span>Advertisement</span>${para(3)}<p>${prose}</p>`);
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("- Anzeige -");
    expect(text).not.toContain("Advertisement");
    expect(text).toContain(prose);
  });

  it("removes a line that is only a page control's label (print, share, back to the list, a feedback prompt)", () => {
    const prose = "Teilen wollte der Verband die Kosten nicht: er verklagte die Stadt wegen des Staudamms.";
    const text = textOf(`${para(1)}<div class="tools"><a href="#">Drucken</a></div>${para(2)}<p><span>Share this article</span></p>${para(3)}<p>${prose}</p><p><a href="/list">Zur Übersicht</a></p><p><strong>War der Artikel nützlich?</strong></p>`);
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("Drucken");
    expect(text).not.toContain("Share this article");
    expect(text).not.toContain("Zur Übersicht");
    expect(text).not.toContain("War der Artikel nützlich?");
    expect(text).toContain(prose);
  });

  it("removes a picture gallery's or a shop link's control label (enlarge, show or close the picture, caption, to the shop)", () => {
    const caption = "Die Staumauer im Winter, von der alten Brücke aus gesehen, kurz nach der Fertigstellung.";
    const text = textOf(
      `${para(1)}<div class="gallery"><img src="/d.jpg"><span>Vergrößern</span><p>${caption}</p><span>Bild anzeigen</span> <span>Bild schließen</span><button>x</button><span>Caption</span><span>Close</span></div>${para(2)}<div class="shop"><span>Zum Shop</span></div>${para(3)}`,
    );
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).toContain(caption);
    for (const label of ["Vergrößern", "Bild anzeigen", "Bild schließen", "Caption", "Close", "Zum Shop"]) expect(text).not.toContain(label);
  });

  it("removes a gallery's slide counter, and keeps a fraction and a score", () => {
    const text = textOf(
      `${para(1)}<div class="gallery"><img src="/d.jpg"><span>1 of 5</span></div>${para(2)}<div class="slides"><img src="/e.jpg"><div>2 / 62</div><p>Bild 3 von 12</p></div>${para(3)}` +
        `<table><tr><td>1/2</td><td>cup of flour</td></tr><tr><td>3 of 2</td><td>a line that is no counter</td></tr></table>${para(4)}`,
    );
    expect(text).toContain("Paragraph 4 of the report");
    for (const counter of ["1 of 5", "2 / 62", "Bild 3 von 12"]) expect(text).not.toContain(counter);
    expect(text).toContain("1/2");
    expect(text).toContain("3 of 2");
  });

  it("removes a breadcrumb trail left inside the content, and keeps a sentence that compares", () => {
    const prose = "Der Pegel stieg > 3 m > Warnstufe, sagte der Verband, und die Stadt ließ den Damm räumen.";
    const text = textOf(`<p><a href="/">Start</a> » <a href="/blog">Blog</a> » <a href="/blog/damm">Der Damm</a></p>${para(1)}${para(2)}<p>${prose}</p>${para(3)}`);
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("Start »");
    expect(text).toContain(prose);
  });

  it("removes a 'more information' pointer and a pointer heading that names where it points", () => {
    const prose = "Weitere Informationen legte der Verband dem Gericht erst im Herbst vor, nachdem die Stadt den Damm geräumt hatte.";
    const text = textOf(`${para(1)}${para(2)}<p>${prose}</p>${para(3)}<p><a href="https://example.org/">Weitere Infos unter www.example.org.</a></p><h3>Mehr zum Thema auf Example.org</h3><ul><li>x</li></ul>${para(4)}`);
    expect(text).toContain("Paragraph 4 of the report");
    expect(text).not.toContain("Weitere Infos unter");
    expect(text).not.toContain("Mehr zum Thema auf Example.org");
    expect(text).toContain(prose);
  });
});
