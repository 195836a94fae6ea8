/**
 * Conditional cleaning never removes the block that holds most of the content's prose. A photo post (more
 * images than paragraphs) was judged by its counts alone and removed whole; the empty content then sent the
 * page to the whole-body fallback, navigation and all.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const sentence = (n: number) => `Sentence ${n} tells in plain words and at some length what the photographs show and where they were taken and why.`;
const images = Array.from({ length: 8 }, (_, i) => `<img src="/p/${i}.jpg" alt="">`).join("");
const nav = `<div id="top"><ul>${Array.from({ length: 12 }, (_, i) => `<li><a href="/s${i}">Section number ${i}</a></li>`).join("")}</ul></div>`;
const read = (body: string) => extractHtmlSync({ html: `<html><head><title>T</title></head><body>${body}</body></html>`, url: "https://example.com/a", markdown: false });

describe("the cleaning guard", () => {
  it("keeps a photo post whose images outnumber its paragraphs", () => {
    const post = `<div class="post-body"><div class="gallery">${images}<div class="caption"><p>${sentence(1)} ${sentence(2)}</p><p>${sentence(3)} ${sentence(4)}</p></div></div><div class="byline">Posted by <a href="/me">me</a> on Monday</div></div>`;
    const result = read(`${nav}${post}`);
    expect(result.text).toContain("Sentence 1 tells");
    expect(result.text).toContain("Sentence 4 tells");
    expect(result.text).not.toContain("Section number");
    expect(result.warnings).toEqual([]);
  });

  it("still removes a small image strip inside the article", () => {
    const paragraphs = [1, 3, 5].map((n) => `<p>${sentence(n)} ${sentence(n + 1)}</p>`).join("");
    const post = `<div class="post-body"><div class="text">${paragraphs}</div><div class="strip">${images}<p>Strip caption</p></div></div>`;
    const result = read(`${nav}${post}`);
    expect(result.text).toContain("Sentence 6 tells");
    expect(result.text).not.toContain("Strip caption");
  });
});
