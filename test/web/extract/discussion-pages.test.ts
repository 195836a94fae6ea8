/**
 * A page whose text is all discussion (a live ticker whose entries sit in "live-match-comments", a forum whose first
 * post is a "comment") is read by a last try that keeps comment threads and lets their names weigh nothing, before
 * the fallbacks that return the title's block or the whole body (trafilatura's set: sports.fr, mactechnews.de).
 * A page with an article of its own still leaves its comments out (comment-threads.test.ts).
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const entry = (minute: number) =>
  `<div class="live-match-comment" data-time="${minute}"><div class="live-match-comment-time">${minute}'</div><div class="live-match-comment-body">Minute ${minute}: the home side press high, win the ball back and force a corner, which comes to nothing.</div></div>`;
const page = `<html><head><title>Lorient vs Lyon</title></head><body><nav><a href="/">Home</a> <a href="/foot">Football</a></nav>
<div class="container"><div class="main-content"><h1>Lorient vs Lyon</h1><div class="score">1 - 1</div>
<div class="live-match-comments">${[90, 75, 60, 45, 30, 15, 5].map(entry).join("")}</div></div></div>
<footer><p>All rights reserved.</p></footer></body></html>`;

describe("pages that are all discussion", () => {
  it("are read by their discussion, not by a fallback", () => {
    const { text, warnings } = extractHtmlSync({ html: page, url: "https://example.com/live", markdown: false });
    expect(text).toContain("Minute 90: the home side press high");
    expect(text).toContain("Minute 5: the home side press high");
    expect(text).not.toContain("All rights reserved");
    expect(warnings).toEqual([]);
  });
});
