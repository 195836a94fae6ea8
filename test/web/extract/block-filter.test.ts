/**
 * The learned block filter: its leaf blocks are the content's text blocks in order, a model's judge removes the
 * blocks it scores as boilerplate and nothing else, a block holding most of the content is never removed, and the
 * shipped model was trained on the features this code computes.
 */
import { describe, expect, it } from "bun:test";
import { blockViews, collapsedBodyText, leafBlocks, NUMERIC_FEATURES, placedAsCaption, type BlockView } from "../../../src/web/extract/block-features.ts";
import { blockKind, BLOCK_FILTER_ON, modelJudge, SHIPPED_BLOCK_MODEL, type BlockModel } from "../../../src/web/extract/block-filter.ts";
import { parsePage } from "../../../src/web/extract/content-parse.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the report tells, plainly and at length, how the dam was built and who paid for it.</p>`;
/** A paragraph long enough to count as prose (150 characters or more, ending a sentence). */
const prose = (n: number) => para(n).replace("</p>", " It took nine years, three floods and a change of government to finish.</p>");
const page = (inner: string) => `<html><body><div id="nav"><a href="/">Home</a></div><div class="story">${inner}</div></body></html>`;

/** A model that weighs only class words: `byline` far towards boilerplate. */
function wordModel(words: Record<string, number>, maxShare = 0.5): BlockModel {
  return { numeric: [...NUMERIC_FEATURES], numericWeights: NUMERIC_FEATURES.map(() => 0), words, bias: -5, threshold: 0.9, maxShare };
}

describe("learned block filter", () => {
  it("finds the leaf blocks of a content in order, not their containers", () => {
    const { body } = parsePage(`<div><p>One <a href="/x">link</a></p><ul><li>Two</li><li><div>Three</div></li></ul><figure><img src="/a.jpg"><figcaption>Four</figcaption></figure><div><span>Five</span></div><div></div></div>`);
    const blocks = leafBlocks(body);
    expect(blocks.map((block) => `${block.element.name}:${block.text}`)).toEqual(["p:One link", "li:Two", "div:Three", "figcaption:Four", "div:Five"]);
    expect(blocks[0]?.linkChars).toBe(4);
  });

  it("removes the blocks the model scores as boilerplate, and only with a judge", () => {
    const html = page(`<div class="byline">By Jane Doe, staff writer</div>${para(1)}${para(2)}<p class="byline-note">Jane Doe writes about dams</p>${para(3)}`);
    const judge = modelJudge(wordModel({ byline: 10 }));
    const filtered = extractHtmlSync({ html, url: "https://example.com/a", markdown: false, blockJudge: judge }).text;
    expect(filtered).not.toContain("By Jane Doe");
    expect(filtered).not.toContain("Jane Doe writes about dams");
    expect(filtered).toContain("Paragraph 1 of the report");
    expect(filtered).toContain("Paragraph 3 of the report");
    const unfiltered = extractHtmlSync({ html, url: "https://example.com/a", markdown: false, blockJudge: null }).text;
    expect(unfiltered).toContain("By Jane Doe");
    expect(unfiltered).toContain("Jane Doe writes about dams");
  });

  it("never removes a block holding more than the model's share of the content", () => {
    const long = `<p class="byline">${"The whole story of the dam, told in one long paragraph that is most of the page. ".repeat(12)}</p>`;
    const html = page(`${long}${para(1)}`);
    const text = extractHtmlSync({ html, url: "https://example.com/a", markdown: false, blockJudge: modelJudge(wordModel({ byline: 10 }, 0.25)) }).text;
    expect(text).toContain("The whole story of the dam");
  });

  it("refuses a model trained on other features, and the shipped model is this code's", () => {
    expect(() => modelJudge({ ...wordModel({}), numeric: ["log_chars"] })).toThrow();
    expect(SHIPPED_BLOCK_MODEL.numeric).toEqual([...NUMERIC_FEATURES]);
    expect(SHIPPED_BLOCK_MODEL.numericWeights.length).toBe(NUMERIC_FEATURES.length);
    expect(() => modelJudge(SHIPPED_BLOCK_MODEL)).not.toThrow();
  });

  it("reads the content's structure: prose span, containers without prose, structures repeated across containers", () => {
    const teaser = (n: number) => `<li class="teaser"><div class="card"><h3>Teaser headline ${n}</h3></div></li>`;
    const { body } = parsePage(`<div><div class="dateline">Monday</div><div class="text">${prose(1)}${prose(2)}</div><div class="photo"><div>The dam at night</div><div>Photo: Jane</div></div>${prose(3)}<ul class="related">${teaser(1)}${teaser(2)}${teaser(3)}</ul></div>`);
    const views = blockViews(body.children[0] as never, { bodyText: "", title: "" });
    const at = (name: string) => NUMERIC_FEATURES.indexOf(name);
    const row = (text: string) => views.find((view) => view.block.text.startsWith(text))?.numeric as Float64Array;
    expect(row("Monday")[at("before_prose")]).toBe(1);
    expect(row("Monday")[at("after_prose")]).toBe(0);
    expect([row("Paragraph 2")[at("before_prose")], row("Paragraph 2")[at("after_prose")]]).toEqual([0, 0]);
    expect(row("Teaser headline 2")[at("after_prose")]).toBe(1);
    expect([row("Photo: Jane")[at("before_prose")], row("Photo: Jane")[at("after_prose")]]).toEqual([0, 0]);
    expect(row("Photo: Jane")[at("container_without_prose")]).toBe(1);
    expect(row("Paragraph 1")[at("container_without_prose")]).toBe(0);
    expect(row("Teaser headline 1")[at("template_spread")]).toBeGreaterThan(0);
    expect(row("Paragraph 1")[at("template_spread")]).toBe(0);
    expect(row("Photo: Jane")[at("named_media")]).toBe(1);
    expect(row("Teaser headline 3")[at("named_related")]).toBe(1);
  });

  it("with the edges gate, removes only at the content's edges or in containers without prose", () => {
    const html = page(`<div class="byline">By Jane Doe, staff writer</div>${prose(1)}<p class="byline">Jane Doe, among the paragraphs</p>${prose(2)}${prose(3)}`);
    const text = extractHtmlSync({ html, url: "https://example.com/a", markdown: false, blockJudge: modelJudge({ ...wordModel({ byline: 10 }), gate: "edges" }) }).text;
    expect(text).not.toContain("By Jane Doe");
    expect(text).toContain("Jane Doe, among the paragraphs");
  });

  it("names short lines worded as boilerplate, and sorts blocks into kinds", () => {
    const { body } = parsePage(
      `<div><p>By Jane Doe</p><p>Published 3 March 2024, 10:02</p>${prose(1)}<figure><img src="/d.jpg"><figcaption>The dam at night</figcaption></figure>` +
        `<p>Photo: Getty Images</p>${prose(2)}<p>By the river the dam stood for nine years before the floods came and went again.</p>` +
        `<p>Credit card debt rose again</p><p>Maruti share drives in top gear</p><p>Share this article</p><p>12 comments</p><p>Read more: how dams are paid for</p><ul class="related"><li><a href="/x">Another dam story</a></li><li><a href="/y">A third dam story</a></li></ul></div>`,
    );
    const views = blockViews(body.children[0] as never, { bodyText: "", title: "" });
    const view = (text: string) => views.find((one) => one.block.text.startsWith(text)) as (typeof views)[number];
    const on = (text: string) => NUMERIC_FEATURES.filter((name, i) => name.startsWith("phrase_") && view(text).numeric[i] === 1);
    expect(on("By Jane Doe")).toEqual(["phrase_byline"]);
    expect(on("Published 3 March")).toEqual(["phrase_dateline"]);
    expect(on("Photo: Getty")).toEqual(["phrase_credit"]);
    expect(on("Share this")).toEqual(["phrase_share"]);
    expect(on("12 comments")).toEqual(["phrase_comments"]);
    expect(on("Read more")).toEqual(["phrase_more"]);
    // "By the river…" is a sentence, not a byline (lower case after "By", and longer than a byline).
    expect(on("By the river")).toEqual([]);
    // Headlines that merely hold a widget's or a credit's word are not widgets or credits.
    expect(on("Credit card debt")).toEqual([]);
    expect(on("Maruti share drives")).toEqual([]);
    expect(on("Paragraph 1")).toEqual([]);
    expect(blockKind(view("By Jane Doe").numeric)).toBe("phrase");
    expect(blockKind(view("The dam at night").numeric)).toBe("caption");
    expect(blockKind(view("Another dam story").numeric)).toBe("related");
    expect(blockKind(view("Paragraph 2").numeric)).toBe("body");
  });

  it("with kinds, removes only blocks of those kinds", () => {
    const html = page(`<div class="byline">By Jane Doe</div>${prose(1)}${prose(2)}<div class="byline">Jane Doe covers dams for the paper</div>`);
    const text = extractHtmlSync({ html, url: "https://example.com/a", markdown: false, blockJudge: modelJudge({ ...wordModel({ byline: 10 }), kinds: ["phrase"] }) }).text;
    expect(text).not.toContain("By Jane Doe");
    expect(text).toContain("Jane Doe covers dams for the paper");
    expect(text).toContain("Paragraph 2 of the report");
  });

  it("tells a caption by its place as blockKind does from the features, so a model of phrases and captions may skip them", () => {
    const { body } = parsePage(
      `<div class="story">${prose(1)}<figure><img src="/a.jpg"><figcaption>The dam at night</figcaption></figure><figure><p>A wall of water</p></figure>` +
        `<div class="photo-credit">Jane Roe</div><table><caption>Flow by year</caption><tr><td>1990</td></tr></table><p>By Jane Doe</p>${prose(2)}</div>`,
    );
    const views = blockViews(body, { bodyText: collapsedBodyText(body), title: "" });
    for (const view of views) {
      const kind = blockKind(view.numeric);
      if (kind === "caption") expect(placedAsCaption(view.block, body)).toBe(true);
      if (placedAsCaption(view.block, body)) expect(["caption", "phrase"]).toContain(kind);
    }
    expect(views.filter((view) => placedAsCaption(view.block, body)).map((view) => view.block.text)).toEqual(["The dam at night", "A wall of water", "Jane Roe", "Flow by year"]);
  });

  it("scores no block of content where a model of phrases and captions could remove none", () => {
    const judged: string[] = [];
    const judge = { ...modelJudge({ ...wordModel({}), kinds: ["phrase", "caption"] }), judge: (view: BlockView) => (judged.push(view.block.text), false) };
    extractHtmlSync({ html: page(`${prose(1)}${prose(2)}${prose(3)}`), url: "https://example.com/a", markdown: false, blockJudge: judge });
    expect(judged).toEqual([]);
    // A caption in a plain block of the figure (a <figcaption> leaves by rule before the model sees it: content-captions.ts).
    extractHtmlSync({ html: page(`${prose(1)}<figure><img src="/a.jpg"><div>The dam at night</div></figure>${prose(2)}`), url: "https://example.com/a", markdown: false, blockJudge: judge });
    expect(judged).toContain("The dam at night");
  });

  it("extracts by default as the shipped switch says", () => {
    const html = page(`<div class="author-box">Jane Doe is a staff writer</div>${para(1)}${para(2)}${para(3)}<div class="author-bio">More by Jane Doe</div>`);
    const byDefault = extractHtmlSync({ html, url: "https://example.com/a", markdown: false }).text;
    const expected = extractHtmlSync({ html, url: "https://example.com/a", markdown: false, blockJudge: BLOCK_FILTER_ON ? modelJudge(SHIPPED_BLOCK_MODEL) : null }).text;
    expect(byDefault).toBe(expected);
  });
});
