import { describe, expect, it } from "bun:test";
import { extractHtml } from "../../../src/web/extract/extract.ts";

const paragraph = (topic: string) =>
  `<p>The ${topic} report, published on Monday by the regional authority, describes in some detail how the work was done, what it cost, and which of the findings the authors consider firm enough to act on this year.</p>`;
const article = (topic: string) => [1, 2, 3, 4].map((n) => paragraph(`${topic} ${n}`)).join("");
const read = (body: string) => extractHtml({ html: `<html><head><title>T</title></head><body>${body}</body></html>`, url: "https://example.com/a", markdown: false });

describe("web/content-detect", () => {
  it("keeps the article and leaves out a longer comment thread", async () => {
    const comments = [1, 2, 3, 4, 5, 6].map((n) => `<li class="comment"><p>Reader ${n} wrote: I think, on balance, that the authority got this right, and I said so at the meeting, twice.</p></li>`).join("");
    const { text, warnings } = await read(`<div class="post">${article("river")}</div><div id="comments"><ol class="commentlist">${comments}</ol></div>`);
    expect(text).toContain("The river 4 report");
    expect(text).not.toContain("Reader");
    expect(warnings).toEqual([]);
  });

  it("keeps an article inside a wrapper named like chrome when the wrapper holds the named content", async () => {
    const { text } = await read(`<div class="share_wrapper"><div class="article">${article("harbour")}</div></div><div class="share-links"><p>Share this story with your friends on every network you use, today and tomorrow.</p></div>`);
    expect(text).toContain("The harbour 1 report");
    expect(text).not.toContain("Share this story");
  });

  it("finds the content of a page wrapped in one form, and leaves out elements hidden by class", async () => {
    const { text } = await read(`<form id="page"><div id="main">${article("bridge")}<div class="hidden">${paragraph("duplicate")}</div></div></form>`);
    expect(text).toContain("The bridge 3 report");
    expect(text).not.toContain("duplicate");
  });

  it("leaves out a link-dense block inside the content", async () => {
    const links = [1, 2, 3, 4, 5].map((n) => `<a href="/s/${n}">Another story number ${n}</a>`).join(" ");
    const { text, links: found } = await read(`<article>${article("canal")}<div>${links}</div></article>`);
    expect(text).not.toContain("Another story");
    expect(found.some((l) => l.text.startsWith("Another story"))).toBe(false);
  });
});
