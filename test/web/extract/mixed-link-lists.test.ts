/**
 * A list whose every line says something of its own beside its link ("🌟 Ann <a>fixed a crash</a>",
 * "<a>A post</a> by Ann") is the article's, however much of it is link text; the same lines under a heading
 * that names them chrome ("Related Posts") are not.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the weekly notes says, in plain words, what the teams shipped and what comes next.</p>`;
const items = [
  `<li>🌟 Ankush Dua <a href="/b/1">fixed an issue with revoked devtools_page permissions for WebExtensions</a></li>`,
  `<li>🌟 gero <a href="/b/2">removed the windowtype attribute</a> from dialogs</li>`,
  `<li>manekenpix <a href="/b/3">converted some DevTools code</a> to use DOM Promises</li>`,
].join("");

function extract(body: string): string {
  const html = `<html><body><div id="nav"><a href="/">Home</a></div><div class="post">${body}</div></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("lists of lines with links", () => {
  it("are kept when every line has text of its own", () => {
    const text = extract(`${para(1)}${para(2)}<h4>New contributors</h4><ul>${items}</ul>${para(3)}`);
    expect(text).toContain("Paragraph 3 of the weekly notes");
    expect(text).toContain("Ankush Dua");
    expect(text).toContain("to use DOM Promises");
  });

  it("are removed under a heading that names them chrome", () => {
    const text = extract(`${para(1)}${para(2)}${para(3)}<h2>Related Posts</h2><ul>${items}</ul>`);
    expect(text).toContain("Paragraph 3 of the weekly notes");
    expect(text).not.toContain("Ankush Dua");
  });

  it("are removed when a line is a link alone", () => {
    const bare = `<li><a href="/b/4">Another linked headline of the site, a long one</a></li>`;
    const text = extract(`${para(1)}${para(2)}<h4>New contributors</h4><ul>${items}${bare}</ul>${para(3)}`);
    expect(text).toContain("Paragraph 3 of the weekly notes");
    expect(text).not.toContain("Ankush Dua");
  });
});
