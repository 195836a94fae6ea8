/**
 * The detected content is trimmed to the article the page states in its JSON-LD `articleBody` when that text is the
 * content's article in full: a caption with its credit, a byline, a related box and a newsletter line inside the article's container go; the
 * headline, the standfirst, subheads and the article's paragraphs stay. A stated text that is a summary or is cut
 * (a paywall's first paragraphs) removes nothing.
 * @see issue 44 (fifth try: docs/extraction-model.md)
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const topics = ["concrete pilings", "steel sheeting", "crane moorings", "fishing fleet", "ferry timetable", "storm barrier", "council budget", "dredging contract"];
const sentence = (n: number) =>
  `Paragraph ${n} of the report turns to the ${topics[n - 1]}: the harbour authority says work on the ${topics[n - 1]} starts in spring, and that ${topics[n - 1]} costs are covered.`;
const numbers = [1, 2, 3, 4, 5, 6, 7, 8];
const fullBody = numbers.map(sentence).join("\n");
const jsonLd = (body: string) =>
  `<script type="application/ld+json">[{"@type":"WebSite","name":"Harbour News"},{"@context":"https://schema.org","@graph":[{"@type":"NewsArticle","headline":"Quay to be rebuilt","articleBody":${JSON.stringify(body)}}]}]</script>`;
const article = `
  <h1>Quay to be rebuilt</h1>
  <p class="standfirst">The harbour authority has a plan, and a deadline, for the northern quay.</p>
  <p class="byline">By Jane Doe</p>
  <div class="pic"><img src="/quay.jpg"><p>The northern quay at low tide. (Harbour Press/John Smith)</p></div>
  ${numbers.slice(0, 4).map((n) => `<p>${sentence(n)}</p>`).join("")}
  <table><tr><th>Quay length</th><td>410 metres</td></tr><tr><th>Budget</th><td>12 million</td></tr></table>
  <h2>What comes next</h2>
  ${numbers.slice(4).map((n) => `<p>${sentence(n)}</p>`).join("")}
  <div class="box"><p>Read also: Ferry fares rise again as the operator blames fuel <a href="/a">(more)</a></p><p>New lighthouse keeper named</p></div>
  <p>Get the harbour newsletter every Friday</p>`;
const page = (head: string) =>
  `<html><head><title>Quay to be rebuilt | Harbour News</title><meta name="description" content="The harbour authority has a plan, and a deadline, for the northern quay.">${head}</head><body><nav><a href="/">Home</a></nav><article>${article}</article></body></html>`;
// The trim judged alone: the learned block filter (on by default, on pages stating an article) would take the byline too.
const extract = (html: string, statedBodyTrim?: boolean) =>
  extractHtmlSync({ html, url: "https://example.com/", markdown: true, blockJudge: null, ...(statedBodyTrim === undefined ? {} : { statedBodyTrim }) });

describe("the content trimmed to the stated article", () => {
  it("loses the caption, byline, related box and newsletter line the stated article lacks, and keeps its table", () => {
    const untrimmed = extract(page(jsonLd(fullBody)), false);
    for (const line of ["By Jane Doe", "John Smith", "Ferry fares rise again", "New lighthouse keeper", "harbour newsletter"]) expect(untrimmed.text).toContain(line);
    const result = extract(page(jsonLd(fullBody)));
    for (const gone of ["By Jane Doe", "John Smith", "Ferry fares rise again", "New lighthouse keeper", "harbour newsletter"]) {
      expect(result.text).not.toContain(gone);
      expect(result.markdown).not.toContain(gone);
    }
    for (const kept of ["Quay to be rebuilt", "The harbour authority has a plan", "What comes next", "410 metres", "Paragraph 1 of the report", "Paragraph 8 of the report"]) {
      expect(result.text).toContain(kept);
    }
    expect(result.headings.map((heading) => heading.text)).toContain("What comes next");
    expect(result.warnings).toEqual([]);
  });

  it("removes nothing when the stated article is cut short (a paywall's first paragraphs) or only a summary", () => {
    const untrimmed = extract(page(""), false).text;
    const cut = numbers.slice(0, 3).map(sentence).join("\n");
    const summary = "The harbour authority plans to rebuild the northern quay before winter; a short summary of the report. ".repeat(8);
    for (const body of [cut, summary]) expect(extract(page(jsonLd(body))).text).toBe(untrimmed);
  });

  it("reads an articleBody written as escaped HTML, and chooses the stated article that is this content's", () => {
    const escaped = numbers.map((n) => `&lt;p&gt;${sentence(n).replace("northern", "&#110;orthern")}&lt;/p&gt;`).join("");
    const other = "A different story about the airport's new runway, told at length in many words. ".repeat(30);
    const html = page(`<script type="application/ld+json">[{"@type":"NewsArticle","articleBody":${JSON.stringify(other)}},{"@type":"NewsArticle","articleBody":${JSON.stringify(fullBody)}}]</script>`);
    expect(extract(html).text).not.toContain("By Jane Doe");
    expect(extract(page(jsonLd(escaped))).text).not.toContain("By Jane Doe");
  });
});

describe("a stated article whose markup was stripped without spaces", () => {
  it("still holds a subhead written as a bold paragraph, glued to the paragraphs around it", () => {
    const glued = [...numbers.slice(0, 4).map(sentence), "Who pays", ...numbers.slice(4).map(sentence)].join("");
    const html = page(jsonLd(glued)).replace("<h2>What comes next</h2>", "<p><b>Who pays</b></p>");
    const text = extract(html).text;
    expect(text).toContain("Who pays");
    expect(text).not.toContain("By Jane Doe");
  });
});

describe("a forum thread stating its first post as articleBody", () => {
  it("keeps its replies", () => {
    const reply = (n: number) => `<div class="message"><p>Reply ${n}: I had the same trouble with the ${topics[n - 1]} and fixed it by asking the council twice.</p></div>`;
    const posting = `<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Quay works","articleBody":${JSON.stringify(fullBody)}}</script>`;
    const html = `<html><head><title>Quay works</title>${posting}</head><body><main><h1>Quay works</h1>${numbers.map((n) => `<p>${sentence(n)}</p>`).join("")}${reply(1)}${reply(2)}</main></body></html>`;
    const text = extract(html).text;
    expect(text).toContain("Paragraph 8 of the report");
    expect(text).toContain("Reply 2: I had the same trouble");
  });
});
