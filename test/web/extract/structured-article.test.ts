/**
 * A page whose HTML holds little of its article (rendered by script, or behind a paywall) but states the whole text
 * in its JSON-LD `articleBody` is read from that, with a warning saying so; a page whose HTML holds the article is
 * read from its HTML, and a malformed script is ignored.
 */
import { describe, expect, it } from "bun:test";
import { STRUCTURED_DATA_WARNING, extractHtmlSync } from "../../../src/web/extract/extract.ts";

const sentence = (n: number) => `Sentence ${n} of the opinion piece explains why the leader's playbook deserves a careful reading.`;
const stated = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(sentence).join(" ");
const jsonLd = (body: string) => `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Post"},{"@type":"NewsArticle","headline":"Playbook","articleBody":${JSON.stringify(body)}}]}</script>`;
const page = (head: string, main: string) => `<html><head><title>Playbook</title>${head}</head><body><nav><a href="/">Home</a></nav><main>${main}</main></body></html>`;
const extract = (html: string) => extractHtmlSync({ html, url: "https://example.com/", markdown: true });

describe("the article stated in structured data", () => {
  it("is the text when the HTML holds only a teaser of it", () => {
    const result = extract(page(jsonLd(stated), `<h1>Playbook</h1><p>${sentence(1)}</p><div id="app"></div>`));
    expect(result.text).toContain("Sentence 12 of the opinion piece");
    expect(result.markdown).toContain("Sentence 12 of the opinion piece");
    expect(result.warnings).toEqual([STRUCTURED_DATA_WARNING]);
  });

  it("is not used when the HTML holds the article, nor when its script is malformed", () => {
    const html = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => `<p>${sentence(n)}</p>`).join("");
    const read = extract(page(jsonLd(stated), `<h1>Playbook</h1>${html}<p>An <a href="https://example.com/more">afterword</a> with a link.</p>`));
    expect(read.warnings).toEqual([]);
    expect(read.links.map((link) => link.url)).toContain("https://example.com/more");
    const malformed = extract(page(`<script type="application/ld+json">{"articleBody": "${stated}"</script>`, `<h1>Playbook</h1><p>${sentence(1)}</p>`));
    expect(malformed.text).not.toContain("Sentence 12");
  });

  it("is read from a script wrapped in CDATA or holding raw line breaks in its strings, and its entities decoded", () => {
    const raw = `{"@type":"NewsArticle","articleBody":"${stated.replace(/\. /g, ".\n")} Fish &amp; chips."}`;
    for (const script of [`//<![CDATA[\n${raw}\n//]]>`, raw]) {
      const result = extract(page(`<script type="application/ld+json">${script}</script>`, `<h1>Playbook</h1><p>${sentence(1)}</p>`));
      expect(result.text).toContain("Sentence 12 of the opinion piece");
      expect(result.text).toContain("Fish & chips.");
    }
  });
});
