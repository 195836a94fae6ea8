/**
 * An anchor without href (`<a name="s1">` round a section, common in older documentation pages) is a link
 * target, not a link: its text is prose. Counted as link text it made the sections look like link farms,
 * and the content came back without them.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Part ${n} of the guide explains how the records are kept, who reviews them and when the lists are published.</p>`;
const section = (n: number) => `<a name="s${n}"><h3>Section ${n}</h3>${para(n * 10 + 1)}${para(n * 10 + 2)}</a>`;
const menu = `<div id="menu">${Array.from({ length: 8 }, (_, i) => `<a href="/p${i}">Page ${i}</a><br>`).join("")}</div>`;

describe("anchors without href", () => {
  it("hold prose, not link text", () => {
    const html = `<html><body>${menu}<div id="main"><div class="text">${para(1)}${para(2)}</div>${[1, 2, 3, 4].map(section).join("")}</div></body></html>`;
    const { text } = extractHtmlSync({ html, url: "https://example.com/a", markdown: false });
    expect(text).toContain("Part 2 of the guide");
    expect(text).toContain("Part 11 of the guide");
    expect(text).toContain("Part 42 of the guide");
    expect(text).not.toContain("Page 3");
  });
});
