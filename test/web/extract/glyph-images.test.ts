/**
 * Smileys, icons and avatars are glyphs in the text, not pictures: a forum post whose quote carries a quote icon and
 * whose own lines (set apart by <br>, no <p>) carry smileys is not taken for a gallery (more pictures than
 * paragraphs) and removed from the thread (trafilatura's set: pocketpc.ch, katzen-forum.net).
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const post = (n: number, glyphs: string) => `<li class="postbit"><div class="postrow"><div class="msg"><blockquote class="restore">
  <div class="quote"><img src="/images/misc/quote_icon.png" alt="Quote"> Quote from <strong>Ann</strong> <a href="/p${n}"><img class="inlineimg" src="/images/buttons/viewpost.png" alt="View"></a>
  <div class="message">The update came last night, did anyone else get it yet?</div></div>
  Reply ${n}: the update installed fine here, it took about five minutes and the phone restarted twice on its own ${glyphs}<br><br>
  Reply ${n} goes on: after the restart the settings were all still there, and the battery lasts longer than before.
</blockquote></div></div></li>`;
const extract = (html: string) => extractHtmlSync({ html, url: "https://example.com/t", markdown: false });
const read = (html: string) => extract(html).text;

describe("glyph images", () => {
  it("do not make a forum post a gallery", () => {
    const smileys = `<img class="inlineimg" src="/images/smilies/icon_wink.gif" alt=";)"> <img src="/images/smilies/smile.gif" alt=":)">`;
    const posts = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => post(n, n % 2 === 0 ? smileys : "")).join("");
    const html = `<html><body><div id="content"><h1>The update is here</h1><ol id="posts">${posts}</ol></div></body></html>`;
    const { text, warnings } = extract(html);
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) expect(text).toContain(`Reply ${n}: the update installed fine`);
    // Found by detection, not by the fallback that returns the block holding the title.
    expect(warnings).toEqual([]);
  });

  it("leave a box of pictures a box of pictures", () => {
    const pictures = [1, 2, 3].map((n) => `<img src="/uploads/2021/photo-${n}.jpg" alt="">`).join("");
    const story = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i + 1} of the story tells what happened, to whom, and why it matters to the town.</p>`).join("");
    const html = `<html><body><div id="main"><div class="story">${story}<div class="strip"><div>${pictures}</div><p>More photos</p></div></div></div></body></html>`;
    const text = read(html);
    expect(text).toContain("Paragraph 6 of the story");
    expect(text).not.toContain("More photos");
  });
});
