/**
 * The learned block filter runs by default (issue 44, seventh and eighth tries): on a page that states itself an article it
 * takes short phrase lines (a byline, a publication line, a read-more lead-in, a newsletter line) and image captions out of
 * the content; on a page that states nothing the same content is left as the rules cut it, and the article's own
 * paragraphs stay on both. Since the ninth try a second model, of every kind, runs on pages stating the article in
 * JSON-LD: there a meta line after the article goes too, and stays where the page states it otherwise.
 * @see docs/extraction-model.md ("Seventh try", "Eighth try", "Ninth try")
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const topics = ["tram depot", "night buses", "ticket prices", "cycle lanes", "bridge repairs", "park-and-ride"];
const paragraphs = topics
  .map((topic, index) => `<p>Paragraph ${index + 1} sets out the city's plan for the ${topic}: the council voted on Tuesday, and the ${topic} will be funded from next year's budget, officials said.</p>`)
  .join("");
const phraseLines = ["By Jane Doe", "Published 30 November 2026", "Read more: Tram fares frozen", "Sign up for our newsletter"];
const caption = "A new tram leaves the depot on its first test run through the old town on Monday morning.";
// A caption the rules leave (set in a plain paragraph of the figure, not a <figcaption>): the model's to judge.
const figure = `<figure><img src="/tram.jpg" alt=""><p>${caption}</p></figure>`;
const body = `<h1>City transport plan approved</h1>${phraseLines.slice(0, 2).map((line) => `<p>${line}</p>`).join("")}${figure}${paragraphs}${phraseLines.slice(2).map((line) => `<p>${line}</p>`).join("")}`;
const stated = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"City transport plan approved","datePublished":"2026-11-30"}</script>`;
const page = (head: string) =>
  `<html><head><title>City transport plan approved</title>${head}</head><body><nav><a href="/">Home</a></nav><article>${body}</article></body></html>`;

describe("the learned block filter by default", () => {
  it("takes the phrase lines and the caption out of a page that states itself an article, and keeps its paragraphs", () => {
    const result = extractHtmlSync({ html: page(stated), url: "https://example.com/news/plan", markdown: true });
    for (const line of [...phraseLines, caption]) {
      expect(result.text).not.toContain(line);
      expect(result.markdown).not.toContain(line);
    }
    for (let n = 1; n <= topics.length; n++) expect(result.text).toContain(`Paragraph ${n} sets out`);
  });

  it("takes a meta line out of a page stating the article in JSON-LD, not out of one stating it by its publication time", () => {
    const metaLine = "Staff report 7:09 p.m. PT November 30, 2026";
    const withTail = (head: string) => page(head).replace("</article>", `<div class="byline-meta">${metaLine}</div></article>`);
    const timed = `<meta property="article:published_time" content="2026-11-30T10:00:00Z">`;
    const jsonLdText = extractHtmlSync({ html: withTail(stated), url: "https://example.com/news/plan", markdown: false }).text;
    const timedText = extractHtmlSync({ html: withTail(timed), url: "https://example.com/news/plan", markdown: false }).text;
    expect(jsonLdText).not.toContain(metaLine);
    expect(timedText).toContain(metaLine);
    for (let n = 1; n <= topics.length; n++) expect(jsonLdText).toContain(`Paragraph ${n} sets out`);
  });

  it("leaves a page that states nothing as the rules cut it", () => {
    const plain = extractHtmlSync({ html: page(""), url: "https://example.com/news/plan", markdown: false });
    const unfiltered = extractHtmlSync({ html: page(""), url: "https://example.com/news/plan", markdown: false, blockJudge: null });
    expect(plain.text).toBe(unfiltered.text);
    for (const line of [...phraseLines, caption]) expect(plain.text).toContain(line);
  });
});
