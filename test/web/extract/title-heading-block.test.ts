/**
 * The block holding the page's title heading is the article when the block detection scored higher lies
 * apart from it and holds less prose (a browser notice full of commas over a story of short sentences); a
 * headline above the article body, or a titled block with less prose, changes nothing.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const notice = `<div class="n"><p>This page is best viewed in an up-to-date web browser, with style sheets, scripts, fonts, images, and cookies enabled, while you may still read it, in part, in yours, as, of course, you like.</p></div>`;
const sentences = [
  "People from all over the world are coming to London to see the Olympic Games",
  "Scott and Kathy Cleveland from the state of Idaho are among the thousands making the trip",
  "They made a home-made movie about their preparations for the visit to the city",
  "The couple plan to watch the rowing and the athletics from seats they bought last year",
  "Their children will look after the farm and the dogs while they are away from home",
  "They say the trip is the biggest adventure they have had since their wedding day",
];
const story = (heading: string, count: number) =>
  `<div class="s">${heading}${sentences.slice(0, count).map((s) => `<p>${s}.</p>`).join("")}</div>`;

function extract(body: string): string {
  const html = `<html><head><title>BBC News - Scott and Kathy Cleveland are coming to the Olympics</title></head><body>${body}</body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
}

describe("the block holding the page's title", () => {
  it("is taken over a higher-scored block apart from it with less prose", () => {
    const text = extract(`<div class="b1"><div>${notice}</div></div><div class="b2">${story("<h1>Scott and Kathy Cleveland are coming to the Olympics</h1>", 6)}</div>`);
    expect(text).toContain("Their children will look after the farm");
    expect(text).not.toContain("best viewed in an up-to-date web browser");
  });

  it("is not taken when it holds less prose than the chosen block", () => {
    const text = extract(`<div class="b1"><div>${notice}</div></div><div class="b2">${story("<h1>Scott and Kathy Cleveland are coming to the Olympics</h1>", 1)}</div>`);
    expect(text).toContain("best viewed in an up-to-date web browser");
  });

  it("is taken when it is named as content and the chosen block sits in a block named as chrome", () => {
    const bio = `<p>The best ad blogger in the world, now writing elsewhere, who has been a copywriter for nineteen years, hates capri pants, and also, in no order, advertising, midtown, the east side, the west side, and more, much more.</p>`;
    const lines = ["The most blasphemous", "Unfortunate subway poster", "The most accurate synopsis ever written for the", "The seven best zoo ads from the last five years in one", "New York City's vote with your gum election"]
      .map((line, i) => `&bull; ${line} <a href="/p/${i}">piece</a> of the week.<br>`).join("");
    const html = `<html><head><title>copyranter: The top posts from the last two weeks.</title></head><body>
      <div id="content"><div id="header"><h1>copyranter</h1></div>
      <div id="main"><h2>Sunday, November 04, 2012</h2><div class="post"><h3>The top posts from the last two weeks.</h3>
        <div class="post-body"><p>${lines}</p></div></div></div>
      <div id="sidebar"><h2>About Me</h2><div id="profile-container">${bio}${bio}${bio}</div></div></div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("The most accurate synopsis ever written");
    expect(text).not.toContain("capri pants");
  });
});
