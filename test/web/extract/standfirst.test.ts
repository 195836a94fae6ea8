/**
 * The standfirst (dek) a news template sets beside the headline, outside the block holding the article, is kept:
 * known by its text (the page's meta description) and its place (close after the headline). It goes after the
 * headline as a paragraph, once; a block far from the headline that repeats the description (a share box) is not
 * taken, nor a short description's match.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const DEK = "Engineers say the bridge will reopen in spring, two years late and forty million over its budget.";
const para = (n: number) => `<p>Paragraph ${n} of the story says, plainly and at length, what the inspectors found and why it matters.</p>`;
const article = `<div class="article-body">${[1, 2, 3, 4, 5, 6].map(para).join("")}</div>`;
const sidebar = `<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/x">A story about a cat</a></li><li><a href="/y">Another story</a></li></ul></aside>`;

function page(options: { description?: string; hero?: string; afterArticle?: string } = {}): string {
  const description = options.description ?? DEK;
  const hero = options.hero ?? `<h2 class="c-entry-summary p-dek">${DEK}</h2>`;
  return `<html><head><title>The bridge that time forgot - City News</title><meta name="description" content="${description}"></head><body>
<nav><a href="/">Home</a> <a href="/city">City</a></nav>
<div class="hero"><h1>The bridge that time forgot</h1>${hero}<div class="byline">By Ann Writer, March 3, 2017</div></div>
<div class="columns"><div class="main-column">${article}${options.afterArticle ?? ""}</div>${sidebar}</div>
<footer><p>© City News</p></footer></body></html>`;
}

const extract = (html: string, markdown = false) => extractHtmlSync({ html, url: "https://example.com/bridge", markdown });

describe("the standfirst beside the headline", () => {
  it("is kept after the headline, before the article, as a paragraph and not a heading", () => {
    const result = extract(page(), true);
    const at = result.text.indexOf(DEK);
    expect(at).toBeGreaterThan(result.text.indexOf("The bridge that time forgot"));
    expect(at).toBeLessThan(result.text.indexOf("Paragraph 1 of the story"));
    expect(result.text.split(DEK)).toHaveLength(2);
    expect(result.headings.map((heading) => heading.text)).not.toContain(DEK);
    expect(result.markdown).toContain(`\n\n${DEK}\n\n`);
    expect(result.text).not.toContain("By Ann Writer");
  });

  it("is found when the site cut the description short", () => {
    const cut = `${DEK.slice(0, 90)}…`;
    expect(extract(page({ description: cut })).text).toContain(DEK);
  });

  it("is not a block far below the headline that repeats the description", () => {
    const share = `<div class="share-box"><p class="share-description">${DEK}</p><a href="/share">Share</a></div>`;
    const far = extract(page({ hero: "", afterArticle: share }));
    expect(far.text).toContain("Paragraph 6 of the story");
    expect(far.text.indexOf(DEK)).toBe(-1);
  });

  it("is not taken from a short description (a kicker matches one by chance)", () => {
    const short = "Bridge to reopen in spring.";
    const shortPage = extract(page({ description: short, hero: `<p class="kicker">${short}</p>` }));
    expect(shortPage.text).not.toContain(short);
  });

  it("is not added twice when the article holds it", () => {
    const inside = page({ hero: "" }).replace('<div class="article-body">', `<div class="article-body"><p>${DEK}</p>`);
    expect(extract(inside).text.split(DEK)).toHaveLength(2);
  });
});

describe("the standfirst's search on a hostile page", () => {
  it("does not read a block of hundreds of nodes: a description strewn with empty elements is not taken", () => {
    // Read whole, each of 400 nested boxes round 20,000 empty elements would cost a walk of them all.
    const strewn = (empties: number) => DEK.split(" ").map((word) => `<span>${word} </span>${"<i></i>".repeat(empties)}`).join("");
    const boxes = (empties: number) => `${"<div>".repeat(400)}<p>${strewn(empties)}</p>${"</div>".repeat(400)}`;
    const result = extract(page({ hero: boxes(1_200) }));
    expect(result.text).toContain("Paragraph 6 of the story");
    expect(result.text).not.toContain(DEK);
    // A few empty elements in it are read: the standfirst is kept.
    expect(extract(page({ hero: boxes(5) })).text).toContain(DEK);
  });
});
