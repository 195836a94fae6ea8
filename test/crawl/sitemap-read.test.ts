/**
 * crawl/sitemap-read's scanner on the shapes its fast paths must not get wrong: entries found by
 * their closing tag (namespaced, unclosed, a closing tag with spaces), the page's plain `<loc>`
 * preferred to an image extension's `<image:loc>`, and prefixed or attributed fields still read.
 * @see issue 42
 */
import { describe, expect, it } from "bun:test";
import { readSitemap } from "../../src/crawl/sitemap-read.ts";

describe("crawl/sitemap-read", () => {
  it("reads each entry up to its own closing tag, skipping one never closed", () => {
    const text = `<?xml version="1.0"?><urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
      <url><loc>https://a.example/1</loc><lastmod>2026-01-01</lastmod></url >
      <url><image:image><image:loc>https://a.example/1.png</image:loc></image:image><loc>https://a.example/2</loc></url>
      <sm:url><sm:loc> https://a.example/3 </sm:loc><sm:lastmod>2026-01-03</sm:lastmod></sm:url>
      <url><loc>https://a.example/never-closed</loc>
    </urlset>`;
    expect(readSitemap(text, "test")).toEqual({
      kind: "urlset",
      urls: [{ url: "https://a.example/1", lastmod: "2026-01-01" }, { url: "https://a.example/2" }, { url: "https://a.example/3", lastmod: "2026-01-03" }],
    });
  });

  it("decodes the predefined entities in a plain <loc>", () => {
    const text = `<urlset><url><loc>https://a.example/?a=1&amp;b=2</loc></url></urlset>`;
    expect(readSitemap(text, "test")).toEqual({ kind: "urlset", urls: [{ url: "https://a.example/?a=1&b=2" }] });
  });
});
