/**
 * A script's data left as text (a JSON blob whose string held a literal "</script>", ended there as a browser ends it)
 * is not the page's content, however long; JSON the page shows as code is (issue 44, eighth try).
 * @see src/web/extract/data-text.ts
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const paragraphs = ["first", "second", "third", "fourth"]
  .map((nth) => `<p>The ${nth} paragraph of the match report says how the home side held on through the rain, and why the visitors' late pressure came to nothing in the end.</p>`)
  .join("");
const feedItem = (n: number) => `{"url_hash":"${n}f00d","url":"https://example.com/videos/${n}","title":"Highlight reel number ${n}","duration":${40 + n},"autoplay":false,"tags":["sport","video"]}`;
const leaked = Array.from({ length: 1000 }, (_, n) => feedItem(n)).join(",");
const page = `<html><head><title>Home side holds on</title></head><body>
<script>window.feed = [{"html":"<script>track()</script>` + `",${leaked}];</script>
<main><article><h1>Home side holds on</h1>${paragraphs}</article></main></body></html>`;

describe("a script's data left as text", () => {
  it("is not taken for the page's content", () => {
    const result = extractHtmlSync({ html: page, url: "https://example.com/report", markdown: false });
    expect(result.text).toContain("The first paragraph of the match report");
    expect(result.text).toContain("The fourth paragraph");
    expect(result.text).not.toContain("url_hash");
    expect(result.text.length).toBeLessThan(1200);
  });

  it("stays when the page shows it as code", () => {
    const shown = `<html><head><title>Reading the feed</title></head><body><article><h1>Reading the feed</h1>${paragraphs}<pre><code>[${Array.from({ length: 6 }, (_, n) => feedItem(n)).join(",\n")}]</code></pre></article></body></html>`;
    const result = extractHtmlSync({ html: shown, url: "https://example.com/docs", markdown: false });
    expect(result.text).toContain('"url_hash":"5f00d"');
  });
});
