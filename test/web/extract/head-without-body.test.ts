/** Pages from older crawls without a <body> tag or with a <head> never closed: their content is read as a browser reads it. */
import { describe, expect, it } from "bun:test";
import { parsePage } from "../../../src/web/extract/content-parse.ts";
import { elementChildrenOf, selectFirstIn } from "../../../src/web/extract/dom.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const story = "<p>The harbour reopened on Monday after three weeks of repairs to the northern sea wall, the port authority said.</p><p>Fishing boats were the first to return, followed by the ferry service to the islands in the afternoon.</p>";
const read = (html: string) => extractHtmlSync({ html, url: "https://example.com/old", markdown: false });

describe("a page whose content the parser leaves in <head>", () => {
  it("reads a page without a <body> tag", () => {
    const result = read(`<html><head><title>Harbour</title>\n${story}</html>`);
    expect(result.title).toBe("Harbour");
    expect(result.text).toContain("The harbour reopened on Monday");
    expect(result.text).toContain("ferry service to the islands");
  });

  it("reads a page whose <head> is never closed, its head content left where it was", () => {
    const html = `<html><head><title>Harbour</title><meta name="description" content="Port news"><link rel="stylesheet" href="a.css">\n<div class="story">${story}</div>`;
    const page = parsePage(html);
    expect(elementChildrenOf(page.head).map((e) => e.name)).toEqual(["title", "meta", "link"]);
    expect(selectFirstIn(page.body, "div.story p")).not.toBeNull();
    const result = read(html);
    expect(result.description).toBe("Port news");
    expect(result.text).toContain("Fishing boats were the first to return");
  });

  it("starts the body at text in <head>, as a browser does", () => {
    const result = read(`<html><head><title>Harbour</title>Harbour news, Monday.${story}`);
    expect(result.text).toContain("The harbour reopened");
  });

  it("reads a page whose <title> is never closed (an ad script cut into its head) instead of taking the page for its title", () => {
    const html = `<html><head><title>Harbour reopens'?' + OAS_query + '"><\\/SCRIPT>');\n//-->\n</SCRIPT>\n<div class="story">${story}</div></html>`;
    const result = read(html);
    expect(result.title).toBe(`Harbour reopens'?' + OAS_query + '">`);
    expect(result.text).toContain("The harbour reopened on Monday");
    expect(result.text).toContain("ferry service to the islands");
    expect(result.warnings).toEqual([]);
  });

  it("leaves a well-formed page as it was", () => {
    const page = parsePage(`<html><head><title>T</title><meta charset="utf-8"></head><body>${story}</body></html>`);
    expect(elementChildrenOf(page.head).length).toBe(2);
    expect(elementChildrenOf(page.body).length).toBe(2);
  });
});
