/**
 * A comment thread is never the main content. A short post under a long thread failed the first try's floor;
 * the try that ignores names then chose the thread, and the whole-body fallback returned it too.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const comment = (n: number) => `<li class="c-${n}"><div class="text"><p>Reader ${n} wrote back at some length, with opinions, asides and a story of their own about the lens and the weather that day.</p></div></li>`;
const html = `<html><body><div id="nav"><a href="/">Home</a> <a href="/forum">Forum</a></div><div id="content"><div class="post"><h2>More sample images</h2><div class="entry-content"><p>Here are a few more pictures from the new lens, found on a photo sharing site.</p></div></div><div id="comments"><ol>${Array.from({ length: 30 }, (_, i) => comment(i + 1)).join("")}</ol></div></div></body></html>`;

describe("comment threads", () => {
  it("are not the content in any try, nor in the whole-body fallback", () => {
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Here are a few more pictures");
    expect(text).not.toContain("Reader 1 wrote");
    expect(text).not.toContain("Reader 30 wrote");
  });

  it("are known by compound names too (commentbody, commentform)", () => {
    const post = Array.from({ length: 3 }, (_, i) => `<p>Paragraph ${i + 1} of the essay on micromorts, the unit of a one-in-a-million chance of death, and how people weigh them.</p>`).join("");
    const thread = Array.from({ length: 25 }, (_, i) => `<div class="commentbody by-reader-${i}"><p>Reader ${i + 1} wrote back at some length, with opinions, asides and a story of their own, about risk, numbers and the weather that day.</p><p class="posted">Posted by: reader ${i + 1}</p></div><hr>`).join("");
    const page = `<html><body><div id="content"><div class="article"><h2>Micromorts</h2>${post}</div><div class="commentform"><h2>Comments</h2>${thread}</div></div></body></html>`;
    const { text } = extractHtmlSync({ html: page, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Paragraph 3 of the essay on micromorts");
    expect(text).not.toContain("Reader 1 wrote");
  });

  it("end where a heading names a thread of loose paragraphs, by its text or its id", () => {
    const post = Array.from({ length: 4 }, (_, i) => `<p>Paragraph ${i + 1} of the post on disaster relief, on who pays for it, who runs it and what the candidates said about it.</p>`).join("");
    const thread = Array.from({ length: 20 }, (_, i) => `<p>Reader ${i + 1} wrote back at some length, with opinions, asides and numbers of their own, about budgets and storms.</p><p class="posted">Posted by: reader ${i + 1} | Apr 6, 2007</p>`).join("");
    for (const heading of [`<h2><a id="comments"></a>Comments</h2>`, `<h2 id="comments">Talk back</h2>`, `<h3>25 Comments</h3>`]) {
      const page = `<html><body><div id="nav"><a href="/">Home</a></div><div class="blog"><h1>Relief</h1>${post}${heading}${thread}</div></body></html>`;
      const { text } = extractHtmlSync({ html: page, url: "https://example.com/a", markdown: false });
      expect(text).toContain("Paragraph 4 of the post on disaster relief");
      expect(text).not.toContain("Reader 1 wrote");
    }
  });
  it("end at the empty anchor that names them (<a name=\"comments\">), their comments loose lines after it", () => {
    const story = Array.from({ length: 5 }, (_, i) => `<p>Paragraph ${i + 1} of the report on the premiers' dinner, on deficits, manufacturing and what the prime minister offered.</p>`).join("");
    const thread = Array.from({ length: 12 }, (_, i) => `<br><b>Reader ${i + 1}</b><br>Reader ${i + 1} wrote back at some length, with opinions, asides and numbers of their own about taxes and spending.<br><br><hr>`).join("");
    for (const anchor of ['<a name="commentSection"></a>', '<p><a id="comments"></a></p>']) {
      const page = `<html><body><div id="story"><h1>Premiers meet the PM</h1>${story}<hr>${anchor}<b>Comments are now closed for this story</b><br>${thread}</div></body></html>`;
      const { text } = extractHtmlSync({ html: page, url: "https://example.com/a", markdown: false });
      expect(text).toContain("Paragraph 5 of the report");
      expect(text).not.toContain("Comments are now closed");
      expect(text).not.toContain("Reader 1 wrote");
    }
  });

  it("are not ended by such anchors on a page of several posts, each with its own", () => {
    const post = (n: number) => `<h3>Post ${n}</h3>` + Array.from({ length: 3 }, (_, i) => `<p>Paragraph ${i + 1} of post ${n}, on the candidates, their speeches and what the papers made of them this week.</p>`).join("") + `<a name="comments"></a><p><a href="/p${n}#comments">2 comments</a></p>`;
    const page = `<html><body><div id="posts">${post(1)}${post(2)}${post(3)}</div></body></html>`;
    const { text } = extractHtmlSync({ html: page, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Paragraph 3 of post 1");
    expect(text).toContain("Paragraph 3 of post 3");
  });
  it("are known by a heading that is nothing but their title, whatever their blocks' class says", () => {
    const story = Array.from({ length: 3 }, (_, i) => `<p>Paragraph ${i + 1} of the post on meeting journalists, on what they need from a startup and when to offer it.</p>`).join("");
    const reply = (n: number) => `<div class="post"><h3>Comments</h3><div class="Normal">Reader ${n} wrote back at some length, with opinions, asides and stories of their own, about an interview that went wrong.<br><br>They went on, with more detail about the publication, the questions, the photographer and the headline.<br><br>Posted by reader ${n}</div></div>`;
    const page = `<html><body><div class="article"><h2>How to be useful to journalists</h2>${story}<h3>Comment</h3><p>Offer a view when a story needs one, and answer quickly, with the facts that back it up.</p></div><div id="listing">${[1, 2, 3, 4].map(reply).join("")}</div></body></html>`;
    const { text } = extractHtmlSync({ html: page, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Paragraph 3 of the post on meeting journalists");
    expect(text).toContain("Offer a view when a story needs one");
    expect(text).not.toContain("Reader 1 wrote");
  });

  it("end where a heading names them in another language, and a lone line naming them goes", () => {
    const post = Array.from({ length: 4 }, (_, i) => `<p>Absatz ${i + 1} des Beitrags über die Katastrophenhilfe, wer sie bezahlt, wer sie leitet und was die Kandidaten dazu sagten.</p>`).join("");
    const thread = Array.from({ length: 20 }, (_, i) => `<p>Leser ${i + 1} schrieb ausführlich zurück, mit Meinungen, Abschweifungen und eigenen Zahlen über Haushalte und Stürme.</p>`).join("");
    for (const heading of [`<h2>Kommentare (20)</h2>`, `<h3>Schreibe einen Kommentar</h3>`, `<h2>Commentaires</h2>`]) {
      const page = `<html><body><div id="nav"><a href="/">Home</a></div><div class="blog"><h1>Hilfe</h1>${post}${heading}${thread}</div></body></html>`;
      const { text } = extractHtmlSync({ html: page, url: "https://example.com/a", markdown: false });
      expect(text).toContain("Absatz 4 des Beitrags");
      expect(text).not.toContain("Leser 1 schrieb");
    }
    const page = `<html><body><div class="blog"><h1>Hilfe</h1>${post}<p>Keine Kommentare</p><div class="footer-note"><p>Comments are closed.</p></div></div></body></html>`;
    const { text } = extractHtmlSync({ html: page, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Absatz 4 des Beitrags");
    expect(text).not.toContain("Keine Kommentare");
    expect(text).not.toContain("Comments are closed");
  });
});
