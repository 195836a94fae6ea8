/**
 * Pages the publisher declares an article (content-declared.ts), and the learned block filter's page gate: a model
 * limited to declared (or stated) articles removes a byline on a declared page and leaves an undeclared page as it is;
 * a second model joined to it (BlockModel.also) removes what it names on the pages its own gate passes.
 */
import { describe, expect, it } from "bun:test";
import { NUMERIC_FEATURES } from "../../../src/web/extract/block-features.ts";
import { modelJudge, type BlockModel } from "../../../src/web/extract/block-filter.ts";
import { articleDeclarations, passesPageGate } from "../../../src/web/extract/content-declared.ts";
import { parsePage } from "../../../src/web/extract/content-parse.ts";
import { readJsonLd } from "../../../src/web/extract/content-structured.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the report tells, plainly and at length, how the dam was built and who paid for it.</p>`;
const story = `<div class="story"><div class="byline">By Jane Doe, staff writer</div>${para(1)}${para(2)}${para(3)}</div>`;
const page = (head: string, body = story) => `<html><head><title>The dam</title>${head}</head><body>${body}</body></html>`;
const ways = (html: string) => articleDeclarations(parsePage(html).head, readJsonLd(html), html);

/** A model that weighs only the class word `byline`, far towards boilerplate, on the pages `pages` names. */
const bylineModel = (pages: BlockModel["pages"]): BlockModel => ({
  numeric: [...NUMERIC_FEATURES], numericWeights: NUMERIC_FEATURES.map(() => 0), words: { byline: 10 }, bias: -5, threshold: 0.9, maxShare: 0.5, pages,
});
const extract = (html: string, model: BlockModel) => extractHtmlSync({ html, url: "https://example.com/a", markdown: false, blockJudge: modelJudge(model) }).text;

describe("declared articles", () => {
  it("reads each way a page declares itself an article", () => {
    expect(ways(page(`<meta property="og:type" content="article">`))).toEqual(["og-type"]);
    expect(ways(page(`<meta property="article:published_time" content="2026-12-07T10:00:00Z">`))).toEqual(["published-time"]);
    expect(ways(page(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebPage"},{"@type":["NewsArticle"],"headline":"The dam"}]}</script>`))).toEqual(["json-ld"]);
    expect(ways(page("", `<article itemscope itemtype="https://schema.org/BlogPosting">${story}</article>`))).toEqual(["microdata"]);
    expect(ways(page(`<meta property="og:type" content="website"><script type="application/ld+json">{"@type":"Organization","name":"Dams"}</script>`))).toEqual([]);
  });

  it("passes og:type alone as declared but not as stated", () => {
    expect(passesPageGate("declared", ["og-type"])).toBe(true);
    expect(passesPageGate("stated", ["og-type"])).toBe(false);
    expect(passesPageGate("stated", ["og-type", "json-ld"])).toBe(true);
    expect(passesPageGate("all", [])).toBe(true);
    expect(passesPageGate("declared", [])).toBe(false);
    expect(passesPageGate("json-ld", ["json-ld"])).toBe(true);
    expect(passesPageGate("json-ld", ["published-time", "microdata", "og-type"])).toBe(false);
  });

  it("runs a gated model only on pages declared an article", () => {
    const declared = page(`<meta property="og:type" content="article">`);
    const stated = page(`<script type="application/ld+json">{"@type":"NewsArticle","headline":"The dam"}</script>`);
    const undeclared = page("");
    expect(extract(declared, bylineModel("declared"))).not.toContain("By Jane Doe");
    expect(extract(declared, bylineModel("declared"))).toContain("Paragraph 1 of the report");
    expect(extract(undeclared, bylineModel("declared"))).toContain("By Jane Doe");
    expect(extract(declared, bylineModel("stated"))).toContain("By Jane Doe");
    expect(extract(stated, bylineModel("stated"))).not.toContain("By Jane Doe");
    expect(extract(undeclared, bylineModel("all"))).not.toContain("By Jane Doe");
    const plain = extractHtmlSync({ html: undeclared, url: "https://example.com/a", markdown: false, blockJudge: null }).text;
    expect(extract(undeclared, bylineModel("declared"))).toBe(plain);
  });

  it("joins a second model's removals on the pages its own gate names (BlockModel.also)", () => {
    const story2 = story.replace("</div><p>", `</div><div class="extra">Our other reports on dams and rivers, with maps</div><p>`);
    const jsonLd = page(`<script type="application/ld+json">{"@type":"NewsArticle","headline":"The dam"}</script>`, story2);
    const timed = page(`<meta property="article:published_time" content="2026-12-07T10:00:00Z">`, story2);
    const promoModel: BlockModel = { ...bylineModel("json-ld"), words: { extra: 10 } };
    const joined: BlockModel = { ...bylineModel("stated"), also: promoModel };
    // Both gates pass on the JSON-LD page: the byline and the promo go, the paragraphs stay.
    expect(extract(jsonLd, joined)).not.toContain("By Jane Doe");
    expect(extract(jsonLd, joined)).not.toContain("Our other reports on dams");
    expect(extract(jsonLd, joined)).toContain("Paragraph 3 of the report");
    // A publication time states the article but is not JSON-LD: only the first model runs.
    expect(extract(timed, joined)).not.toContain("By Jane Doe");
    expect(extract(timed, joined)).toContain("Our other reports on dams");
    // The second model alone where the first does not run.
    expect(extract(jsonLd, { ...bylineModel("declared"), pages: "json-ld", words: {}, also: promoModel })).toContain("By Jane Doe");
    expect(extract(jsonLd, { ...bylineModel("declared"), pages: "json-ld", words: {}, also: promoModel })).not.toContain("Our other reports on dams");
    // One level only: a second model with a second model of its own is refused.
    expect(() => extract(jsonLd, { ...bylineModel("stated"), also: { ...promoModel, also: promoModel } })).toThrow("cannot have one of its own");
  });
});
