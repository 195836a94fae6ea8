/**
 * Photo credits inside the chosen content are the picture's, not the article's: a short element named as a
 * credit, or a short line that opens as one ("Foto: …", "Photo by …", "© …"), is removed. Prose that merely
 * starts with such a word and long lines stay. A <figcaption> that carries a credit's mark goes whole; one without stays where captions tell the story
 * (else it goes as a picture's caption: picture-captions.test.ts).
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
    const text = textOf(`${para(1)}<div class="pic"><img src="/d.jpg"><p>Foto: Marco Roepers</p><span class="photo-credit">Jane Doe/Agency</span></div>${para(2)}${para(3)}<p>Photo by James Martin</p>${para(4)}<p>Beitragsbild: Titelseite der Zeitung vom 2.4.2019, Ausriss.</p>`);
    expect(text).toContain("Paragraph 1 of the report");
    expect(text).toContain("Paragraph 4 of the report");
    expect(text).not.toContain("Marco Roepers");
    expect(text).not.toContain("Jane Doe/Agency");
    expect(text).not.toContain("James Martin");
    expect(text).not.toContain("Titelseite der Zeitung");
  });

  it("keeps prose that opens with a credit word but is no credit, and long lines", () => {
    const long = `Source: the ministry's own figures, published on Monday, show that the dam cost twice what was planned, and that the overrun fell on the region's budget.`;
    const text = textOf(`${para(1)}<p>Photos of the flooded valley were shown at the hearing.</p>${para(2)}<p>${long}</p>${para(3)}`);
    expect(text).toContain("Photos of the flooded valley were shown at the hearing.");
    expect(text).toContain(long);
  });

  it("keeps a caption without a credit's mark, an agency's name alone included, where the captions tell the story", () => {
    // Captions a quarter of the prose or more stay as pictures' captions (content-captions.ts); only a credit's mark takes one out.
    const text = textOf(`${para(1)}<figure><img src="/d.jpg"><figcaption>The dam at dusk, seen from the old bridge.</figcaption></figure>${para(2)}<figure><img src="/e.jpg"><figcaption>Mark Stout/iStock/Getty Images</figcaption></figure><figure><img src="/f.jpg"><figcaption>The valley under water, two days after the spillway gave way. Foto: Jane Doe</figcaption></figure>${para(3)}`);
    expect(text).toContain("The dam at dusk, seen from the old bridge.");
    expect(text).toContain("Mark Stout/iStock/Getty Images");
    expect(text).not.toContain("The valley under water");
  });

  it("removes a caption that carries a credit's mark, whole", () => {
    const text = textOf(
      `${para(1)}<figure><img src="/d.jpg"><figcaption>The dam at dusk. <span>Foto: Jane Doe</span></figcaption></figure>${para(2)}` +
        `<figure><img src="/e.jpg"><figcaption>Workers on the crest in 1931. © Stadtarchiv</figcaption></figure>${para(3)}` +
        `<figure><img src="/f.jpg"><figcaption>The spillway after the flood. Photograph: Guy Smallman/Getty Images</figcaption></figure>${para(4)}` +
        `<figure><img src="/g.jpg"><figcaption>Praca przy tamie / Źródło: Pixabay</figcaption></figure>${para(5)}` +
        `<figure><div><img src="/h.jpg"><h2 class="figure__caption">Ein Kippmoment am Damm. Bild: Gregory Batardon</h2></div></figure>${para(6)}`,
    );
    expect(text).toContain("Paragraph 4 of the report");
    expect(text).not.toContain("The dam at dusk");
    expect(text).not.toContain("Workers on the crest");
    expect(text).not.toContain("The spillway after the flood");
    expect(text).not.toContain("Praca przy tamie");
    expect(text).not.toContain("Ein Kippmoment am Damm");
  });

  it("removes a caption set as a block that ends with its credit after ©, and keeps a copyright notice", () => {
    const text = textOf(
      `${para(1)}<div class="pic"><img src="/d.jpg"><p class="imagedescription">The engineer Anna Berg on the crest of the dam. © AFP / JOHN SMITH</p></div>${para(2)}` +
        `<p>Workers in the valley, spring 1931 / (C) Kab Niang</p>${para(3)}<p>Copyright © 1996-99 Good Cents Energy Services</p>`,
    );
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("The engineer Anna Berg");
    expect(text).not.toContain("Workers in the valley");
    expect(text).toContain("Copyright © 1996-99 Good Cents Energy Services");
  });

  it("removes a figure's caption set as a line that opens with its label, and keeps prose that names a figure", () => {
    const prose = "Die Abbildung zeigt, wie sich die Schneehöhe am Gletscher über den Winter verändert hat, Monat für Monat.";
    const text = textOf(
      `${para(1)}<div class="imginline"><img src="/d.jpg"><span>Abbildung 4: klassische Schwachschicht im Schneeprofil.</span></div>${para(2)}` +
        `<p><em>Fig. 2: The spillway in 1931.</em></p>${para(3)}<p>${prose}</p>`,
    );
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("klassische Schwachschicht");
    expect(text).not.toContain("The spillway in 1931");
    expect(text).toContain(prose);
  });

  it("removes a line that is only a news agency's signature, and keeps a sentence that names the agency", () => {
    const prose = "Nach Angaben der dpa hat der Verband die Stadt wegen des Staudamms verklagt.";
    const text = textOf(`<div class="image-author">PAP/ Rafał Guz</div>${para(1)}${para(2)}<p>${prose}</p>${para(3)}<p>aja/PAP</p>`);
    expect(text).toContain("Paragraph 3 of the report");
    expect(text).not.toContain("Rafał Guz");
    expect(text).not.toContain("aja/PAP");
    expect(text).toContain(prose);
  });

  it("keeps a credited caption that holds most of the content's prose: no caption rule removes the content itself", () => {
    const caption = "The flooded valley seen from the north ridge on Monday morning, where the water reached the church steps and the farmers moved their herds to the upper pastures before the second wave came through the night.";
    const text = textOf(`<figure><img src="/d.jpg"><figcaption>${caption} <span>Foto: Marco Roepers</span></figcaption></figure><p>See above for what happened.</p>`);
    expect(text).toContain(caption);
    // The story stays the content (without the guard the caption went, and the whole page with its navigation was read instead).
    expect(text).not.toContain("Home");
  });
});
