/**
 * A blockquote quotes text in the article: a chrome word in its class (an embedded tweet is a
 * `<blockquote class="twitter-tweet">`) does not drop it.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the show notes says, plainly and at some length, what viewers sent in this week.</p>`;

describe("blockquotes", () => {
  it("are kept whatever their class says", () => {
    const tweet = `<blockquote class="twitter-tweet"><p>Great show last night, awesome format, looking forward to the next one</p>— A viewer (@viewer) April 2, 2013</blockquote>`;
    const html = `<html><body><div id="nav"><a href="/">Home</a></div><div class="post">${para(1)}${para(2)}${tweet}${para(3)}${para(4)}<div class="twitter-share"><a href="/t">Tweet this</a></div></div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Great show last night");
    expect(text).toContain("Paragraph 4 of the show notes");
    expect(text).not.toContain("Tweet this");
  });
});
