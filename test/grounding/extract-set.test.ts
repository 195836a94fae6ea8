/** The web/extract bench's truth comes from a page's metadata, which must be gone from the page the model reads. */
import { describe, expect, it } from "bun:test";
import { pageFacts } from "../../scripts/bench/extract-set.ts";

describe("extract bench set", () => {
  it("takes headline, author, date and site name from meta tags and JSON-LD, and cuts them out of the page", () => {
    const raw = `<html><head><title>Rain in Spain | Daily</title>
<meta property="og:title" content="Rain falls mainly on the plain &amp; hills">
<meta content="Daily Bugle" property='og:site_name'>
<meta name="author" content="By Jane Roe">
<meta property="article:published_time" content="2012-07-31T10:00:00Z">
<meta name="viewport" content="width=device-width">
<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Rain falls", "author": {"name": "Jane Roe"}}</script>
</head><body><h1>Rain falls mainly on the plain</h1><p>By Jane Roe, July 31, 2012</p></body></html>`;
    const { truth, html } = pageFacts(raw);
    expect(truth).toEqual({ headline: "Rain falls", author: "Jane Roe", published_date: "2012-07-31", site_name: "Daily Bugle" });
    for (const gone of ["og:title", "og:site_name", 'name="author"', "article:published_time", "ld+json", "NewsArticle"]) expect(html).not.toContain(gone);
    expect(html).toContain('name="viewport"');
    expect(html).toContain("<h1>Rain falls mainly on the plain</h1>");
  });
});
