/**
 * Hostile nesting: elements deeper than Chromium's parser puts them (MAX_TREE_DEPTH) go in the element at that
 * depth, so a page nested tens of thousands deep reads as a browser shows it, and no walk of the tree overflows.
 */
import { describe, expect, it } from "bun:test";
import { parsePage } from "../../../src/web/extract/content-parse.ts";
import { isTag, type AnyNode } from "../../../src/web/extract/dom.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";
import { MAX_TREE_DEPTH } from "../../../src/web/extract/html-parse.ts";

function depthOf(node: AnyNode): number {
  let deepest = 0;
  const stack: [AnyNode, number][] = [[node, 0]];
  while (stack.length > 0) {
    const [at, depth] = stack.pop() as [AnyNode, number];
    deepest = Math.max(deepest, depth);
    if ("children" in at) for (const child of at.children) if (isTag(child)) stack.push([child, depth + 1]);
  }
  return deepest;
}

describe("hostile nesting", () => {
  const depth = 40_000;
  const html = `<html><body>${"<div>".repeat(depth)}<p>The deep text, written at the bottom of forty thousand boxes, is still the page's text.</p>${"</div>".repeat(depth)}<p>After the boxes.</p></body></html>`;

  it("puts what lies deeper than the cap in the element at the cap", () => {
    expect(html.length).toBeLessThan(1024 * 1024);
    const page = parsePage(html);
    expect(depthOf(page.document)).toBeLessThanOrEqual(MAX_TREE_DEPTH + 1);
  });

  it("reads a page nested tens of thousands deep instead of failing", () => {
    const { text } = extractHtmlSync({ html, url: "https://example.com/", markdown: true });
    expect(text).toContain("The deep text, written at the bottom");
  });
});
