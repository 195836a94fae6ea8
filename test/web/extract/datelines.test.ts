/**
 * A short line that is the article's <time> with at most a label ("Aktualisiert: <time>", "Published <time>") is the
 * page's record of the article, not its text, and is removed from the content; a date inside a sentence stays.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the story says, plainly and at length, which firms check temperatures, and why.</p>`;
const extract = (inside: string) =>
  extractHtmlSync({
    html: `<html><head><title>Fever checks</title></head><body><div class="story-body">${inside}${[1, 2, 3, 4, 5].map(para).join("")}</div></body></html>`,
    url: "https://example.com/",
    markdown: false,
  }).text;

describe("a dateline", () => {
  it("is removed when it is a <time> with a label", () => {
    const text = extract(`<div class="updated">Aktualisiert: <time datetime="2020-04-03T10:15">03.04.2020, 10:15 Uhr</time></div><time datetime="2020-04-02">2 April 2020</time>`);
    expect(text).toContain("Paragraph 1 of the story");
    expect(text).not.toContain("Aktualisiert");
    expect(text).not.toContain("2 April 2020");
  });

  it("stays when the date is part of a sentence", () => {
    const text = extract(`<p>The first checks began on <time datetime="2020-03-02">2 March</time>, at the gates of the largest plants.</p>`);
    expect(text).toContain("The first checks began on 2 March, at the gates");
  });
});
