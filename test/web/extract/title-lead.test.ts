/**
 * The lead (standfirst) set beside the title heading, apart from the body whose paragraphs score, is kept
 * with the content, after the headline; a byline, a caption, or a paragraph after another heading is not.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const title = "Firms check fevers to keep staff healthy";
const para = (n: number) => `<p>Paragraph ${n} of the story says, plainly and at length, which firms check temperatures, and why.</p>`;
const body = `<div class="article-body">${[1, 2, 3, 4, 5, 6].map(para).join("")}</div>`;

function extract(header: string): string {
  const html = `<html><head><title>${title} - Business - Daily</title></head><body><nav><a href="/">Home</a></nav><div class="article"><header class="article-header"><h1>${title}</h1>${header}</header>${body}</div></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("the lead beside the title heading", () => {
  it("is kept, between the headline and the body", () => {
    const text = extract(`<p class="intro">To keep workers healthy, companies try everything from sneeze guards to thermometers at the door.</p>`);
    const lead = text.indexOf("To keep workers healthy");
    expect(lead).toBeGreaterThan(text.indexOf(title));
    expect(lead).toBeLessThan(text.indexOf("Paragraph 1 of the story"));
  });

  it("is not a byline, a caption, or a paragraph under another heading", () => {
    const text = extract(
      `<div class="byline">By Ann Smith, staff reporter | 6 November 2012, 14:35</div><figure><img src="/a.jpg"><figcaption>A thermometer at the entrance of a factory in Ohio, on Monday.</figcaption></figure><h3>Newsletter</h3><p>Get the best of our business reporting in your inbox every single morning.</p>`,
    );
    expect(text).toContain("Paragraph 1 of the story");
    expect(text).not.toContain("By Ann Smith");
    expect(text).not.toContain("A thermometer at the entrance");
    expect(text).not.toContain("Get the best of our business reporting");
  });
});
