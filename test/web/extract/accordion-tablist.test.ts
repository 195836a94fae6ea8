/**
 * role="tablist" marks a strip of tab labels, which is page chrome; but an accordion that keeps its panels
 * (role="tabpanel") inside the list (Bootstrap's panel-group) holds content, and is read.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const intro = [1, 2, 3].map((n) => `<p>Part ${n}: the agency publishes the official labour market figures every month; read how unemployment developed, region by region.</p>`).join("");
const panel = (n: number) =>
  `<div class="panel"><h3 role="tab"><a href="#p${n}">Month ${n}</a></h3><div id="p${n}" class="panel-collapse collapse" role="tabpanel"><p>In month ${n}, employment rose, seasonally adjusted, and the number of people out of work fell by some thousands against the month before.</p></div></div>`;

function extract(list: string): string {
  const html = `<html><body><nav><a href="/">Home</a></nav><main><article><h1>Labour market 2022</h1>${intro}${list}</article></main></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/m", markdown: false }).text;
}

describe("a tablist", () => {
  it("holding its tab panels is read", () => {
    const text = extract(`<div class="panel-group" role="tablist">${[1, 2, 3].map(panel).join("")}</div>`);
    expect(text).toContain("In month 1, employment rose");
    expect(text).toContain("In month 3, employment rose");
  });

  it("of tab labels alone is chrome", () => {
    const text = extract(`<ul role="tablist"><li><a href="#themes">Themes and colours</a></li><li><a href="#addons">Add-ons and extensions</a></li></ul>${[4, 5].map((n) => `<p>Paragraph ${n} says at length how the numbers were counted and where they come from.</p>`).join("")}`);
    expect(text).toContain("Paragraph 5 says");
    expect(text).not.toContain("Themes and colours");
  });
});
