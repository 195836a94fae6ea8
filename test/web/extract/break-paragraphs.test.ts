/**
 * Text set apart by two or more <br> is paragraphs (older news templates write a whole story that way, often
 * in one <span> inside a table cell): each scores as a paragraph, as Readability's replaceBrs makes them, so a
 * story of many such paragraphs outweighs a short box whose name earns it a bonus.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

// Long sentences without commas: a paragraph's score then comes from its length alone (three points at most).
const topics = ["road repairs", "the two rural schools", "the library", "snow clearing", "the sheriff's office", "the east transfer station", "the county engineer", "property taxes", "the county park", "the reserve fund", "the courthouse annex", "the bus routes", "the water tower", "the county's web site"];
const sentences = topics.map(
  (topic) => `The county board spent most of Tuesday night on ${topic} and the members heard from residents who had waited for hours to speak before the vote that closed the long debate on the new budget for the coming year`,
);

function page(breaks: string): string {
  const story = sentences.map((s) => `${s}.`).join(breaks);
  return `<html><head><title>Board passes budget</title></head><body><table><tr>
    <td><p><img src="/spacer.gif">${breaks}<span class="body2">${story}</span></p></td>
    <td><div class="post-teaser"><p>Post your comment below, share it with a friend, or send it to the editor, who reads every note that comes in.</p></div></td>
  </tr></table></body></html>`;
}

const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/news/budget", markdown: false });

describe("paragraphs set apart by <br><br>", () => {
  it("score as paragraphs: the story wins over a short box named 'post'", () => {
    const { text } = read(page("<br><br>"));
    expect(text).toContain("The county board spent most of Tuesday night on road repairs");
    expect(text).toContain("on the county's web site");
    expect(text).not.toContain("Post your comment below");
  });

  it("a single <br> is a line break inside one paragraph, not a new paragraph", () => {
    // One paragraph of fourteen lines scores once (three points for its length): the box named "post" wins there.
    const { text } = read(page("<br>"));
    expect(text).toContain("Post your comment below");
  });
});
