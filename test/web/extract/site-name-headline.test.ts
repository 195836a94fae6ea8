/**
 * The page's h1 joins the content when detection leaves it outside, unless the content has a title of its
 * own (a heading whose text is in the page's <title>) or it is the part of the <title> that names the site:
 * on blogs the h1 is the site's name over every post.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the post says, in plain words, what the designers built, and why, and for whom.</p>`;

function extract(title: string, postHeading: string): string {
  const html = `<html><head><title>${title}</title></head><body><div id="masthead"><h1>Core77</h1></div>
    <div class="post">${postHeading}${para(1)}${para(2)}${para(3)}</div></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("the page's h1 outside the content", () => {
  it("is left out when the content has the title of the page as a heading", () => {
    const text = extract("A Chair Made of Paper - Core77", "<h2>A Chair Made of Paper</h2>");
    expect(text).toContain("A Chair Made of Paper");
    expect(text).not.toContain("Core77");
  });

  it("is kept when the content's heading is not the page's title", () => {
    const text = extract("A Chair Made of Paper", "<h2>Materials</h2>");
    expect(text.startsWith("Core77")).toBe(true);
  });

  it("is left out when it names only the site in the page's title, with no heading in the content", () => {
    expect(extract("A Chair Made of Paper - Core77", "")).not.toContain("Core77");
    expect(extract("Core77: A Chair Made of Paper", "")).not.toContain("Core77");
  });

  it("is kept when the content has no heading and the title does not name it as the site", () => {
    expect(extract("A Chair Made of Paper", "").startsWith("Core77")).toBe(true);
    expect(extract("Core77", "").startsWith("Core77")).toBe(true);
  });
});
