/**
 * The lead (standfirst) just above the body whose paragraphs score is kept when no title heading leads to it (the
 * <title> and the headline differ), and a standfirst set as a long subheading counts as a lead; what is above the
 * headline, a box of links, a picture's caption and a short section heading do not.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the story says, plainly and at length, which firms check temperatures, and why.</p>`;
const body = `<div class="col-a-main">${[1, 2, 3, 4, 5, 6].map(para).join("")}</div>`;

function extract(inArticle: string, beforeArticle = ""): string {
  // The <title> is not the headline's text: the title heading is not found, so the lead above the body is looked for from the body up.
  const html = `<html><head><title>Daily Business | Coronavirus</title></head><body><nav><a href="/">Home</a></nav>${beforeArticle}<div class="col-a"><div class="col-a-top">${inArticle}</div>${body}</div></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("the lead above the body", () => {
  it("is kept before the body when the headline is not the page's title", () => {
    const text = extract(`<h1>Fever checks at the door</h1><div class="teaser"><p>To keep workers healthy, companies try everything from sneeze guards to thermometers at the door.</p></div><div class="meta">6 Nov 2012</div>`);
    const lead = text.indexOf("To keep workers healthy");
    expect(lead).toBeGreaterThanOrEqual(0);
    expect(lead).toBeLessThan(text.indexOf("Paragraph 1 of the story"));
  });

  it("is found nested deep in the article's stage", () => {
    const nested = `<div class="stage"><div class="stage-container"><div class="stage-row"><div class="stage-body"><p>To keep workers healthy, companies try everything from sneeze guards to thermometers at the door.</p></div></div></div></div>`;
    const text = extract(`<h1>Fever checks at the door</h1><div class="stage-wrap">${nested}</div>`);
    const lead = text.indexOf("To keep workers healthy");
    expect(lead).toBeGreaterThanOrEqual(0);
    expect(lead).toBeLessThan(text.indexOf("Paragraph 1 of the story"));
  });

  it("is a long subheading of sentences, but not a short section heading", () => {
    const subheading = "Firms are trying everything from sneeze guards to thermometers at the door, and their staff mostly welcome it.";
    const text = extract(`<h1>Fever checks at the door</h1><h2>${subheading}</h2>`);
    expect(text).toContain(subheading);
    const short = extract(`<h1>Fever checks at the door</h1><h2>Our newsletter</h2><p>Get the best of our business reporting in your inbox every single morning.</p>`);
    expect(short).toContain("Paragraph 1 of the story");
    expect(short).not.toContain("Get the best of our business reporting");
  });

  it("is not what lies above the headline, a box of links or a picture's caption", () => {
    const text = extract(
      `<h1>Fever checks at the door</h1><div class="related"><p><a href="/b">Other story one</a> and <a href="/c">another story, two</a>.</p></div><div class="photo"><img src="/a.jpg"><p>A thermometer at the entrance of a factory in Ohio, on Monday.</p></div>`,
      `<div id="logo"><p>Daily Business, where the economy and the people who make it meet.</p></div>`,
    );
    expect(text).toContain("Paragraph 1 of the story");
    expect(text).not.toContain("where the economy and the people");
    expect(text).not.toContain("Other story one");
    expect(text).not.toContain("A thermometer at the entrance");
  });
});
