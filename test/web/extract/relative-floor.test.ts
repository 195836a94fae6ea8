/**
 * Detection's floor is relative to the page: a small block does not stand for a page whose article is loose
 * paragraphs under <body> (an older page shape: unclosed <P>s, a banner table, an unclosed <center> round the
 * notice at the end). The fixed 200-character floor returned the copyright notice for such a page.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const sentence = (n: number) => `Paragraph ${n} of the sermon goes on about the season and its reasons, with enough plain words to read as prose rather than navigation. `.repeat(5);
const loose = Array.from({ length: 30 }, (_, i) => (i % 6 === 5 ? `<P> \n<blockquote><font size="-1"><b>${sentence(i + 1)}</b></font></blockquote>` : `<P>${sentence(i + 1)}`)).join("");
const banner = `<div class="banner"><table><tr><td><a href="/">Library</a></td><td class="crumb">series: <a href="/s">12 messages</a><br>next message: <a href="/n">The Next One</a></td></tr></table></div>`;
const notice = `<div class="copyright"><P>Copyright 1986 <a href="/dp">Discovery Publishing</a>, a ministry of <a href="/c">the church</a>. This data file is the sole property of Discovery Publishing. It may be copied only in its entirety for circulation freely without charge. All copies must contain the above copyright notice and may not be edited or resold.</div>`;
const page = `<HTML><HEAD><TITLE>Season</TITLE></HEAD><BODY>${banner}<CENTER><H3>THE REASON FOR THE SEASON</H3><P>by A. Preacher<p></CENTER>\n<hr><p>${loose}<P>\n<hr><p>\nMessage no. 4022<br>\nDate 21, 1986<P>\n<p>\n  <center>\n<P>\n${banner}${notice}\n</body>\n</html>`;

describe("the main-content floor", () => {
  it("returns the page's loose paragraphs, not the small notice detection found", () => {
    const result = extractHtmlSync({ html: page, url: "https://example.com/s", markdown: false });
    expect(result.text).toContain("Paragraph 1 of the sermon");
    expect(result.text).toContain("Paragraph 30 of the sermon");
  });

  it("keeps a small article that is most of its page", () => {
    const short = (n: number) => `Paragraph ${n} is short but real prose, long enough together with its sibling to pass the fixed floor of the detector.`;
    const result = extractHtmlSync({
      html: `<html><body><nav><a href="/">Home</a> <a href="/a">About</a></nav><article><p>${short(1)}</p><p>${short(2)}</p></article><footer>© 2024</footer></body></html>`,
      url: "https://example.com/a",
      markdown: false,
    });
    expect(result.text).toBe(`${short(1)}\n\n${short(2)}`);
    expect(result.warnings).toEqual([]);
  });
});
