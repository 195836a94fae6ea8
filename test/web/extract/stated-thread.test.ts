/**
 * A forum thread whose JSON-LD states its first post (DiscussionForumPosting articleBody): when the detected content
 * holds few of the post's lines (the replies' prose outweighs a first post of short lines), the content is the block
 * holding the first post and the replies found; without the statement the page is read as before.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const notes = ["Patch notes 4.47", "Runes were removed.", "Spawn notices are orange.", "Caliphs hit harder.", "Account bans extended.", "Fixed: pharaoh spawns."];

const reply = (n: number) =>
  `<article class="message"><div class="user">Member ${n}</div><div class="message-body"><p>Reply ${n}: It is nice that the system messages work now and everyone knows who spawns when, but fixed spawn times would make the pharaohs far easier to plan for those of us with jobs.</p></div></article>`;

function page(withStatement: boolean): string {
  const ld = JSON.stringify({ "@context": "https://schema.org", "@type": "DiscussionForumPosting", headline: "Patch notes 4.47", articleBody: notes.join("\n") });
  return `<html><head><title>Patch notes 4.47 | Forum</title>${withStatement ? `<script type="application/ld+json">${ld}</script>` : ""}</head><body>
    <nav><a href="/">Forums</a> <a href="/news">News</a></nav>
    <div class="p-body"><h1>Patch notes 4.47</h1>
      <div class="block-body">
        <article class="message"><div class="user">Staff</div><div class="message-body"><ul class="bbWrapper">${notes.map((line) => `<li><a href="/wiki/${line.length}">${line}</a></li>`).join("")}</ul></div></article>
        ${[1, 2, 3, 4, 5].map(reply).join("")}
      </div>
    </div>
    <footer>Forum software © 2019 · Terms and rules</footer></body></html>`;
}

const extract = (html: string) => extractHtmlSync({ html, url: "https://example.com/", markdown: false }).text;

describe("a forum thread stated in JSON-LD", () => {
  it("keeps the first post beside the replies found", () => {
    const text = extract(page(true));
    expect(text).toContain("Spawn notices are orange.");
    expect(text).toContain("Reply 5: It is nice");
    expect(text).not.toContain("Terms and rules");
  });

  it("is read as before without the statement", () => {
    const text = extract(page(false));
    expect(text).toContain("Reply 5: It is nice");
  });
});
