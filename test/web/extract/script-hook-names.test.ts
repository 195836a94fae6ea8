/**
 * A class word with the "js-" prefix is a script's hook, not a description of the block: a forum's posts
 * in XenForo's "js-replyNewMessageContainer" are the page's content, not a comment thread. A block named
 * for replies without the prefix is still one.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const post = (n: number) =>
  `<article class="message"><div class="message-user">User ${n}</div><div class="bbWrapper">Post ${n}: the patch changes the colour of spawn announcements, raises the caliphs' health and shortens their spawn time to twenty minutes.</div></article>`;
const posts = [1, 2, 3, 4].map(post).join("");

function textOf(container: string): string {
  const html = `<html><head><title>Patch notes 4.47</title></head><body><div class="nav"><a href="/">Forums</a> <a href="/de">Deutsch</a></div><h1>Patch notes 4.47</h1><div class="${container}">${posts}</div><p class="foot">Forum software by Someone, all rights reserved.</p></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/t/1", markdown: false }).text;
}

describe("script hook class names", () => {
  it("do not make a forum's posts a comment thread", () => {
    const text = textOf("block-body js-replyNewMessageContainer");
    expect(text).toContain("Post 1: the patch changes the colour");
    expect(text).toContain("Post 4: the patch changes");
  });

  it("leave a block named for replies without the prefix a comment thread", () => {
    const html = `<html><body><div class="story">${[1, 2, 3].map((n) => `<p>Paragraph ${n} of the story tells, plainly and at length, how the town voted on the new bridge.</p>`).join("")}</div><div class="replies">${posts}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/s", markdown: false });
    expect(text).toContain("Paragraph 3 of the story");
    expect(text).not.toContain("Post 1: the patch");
  });
});
