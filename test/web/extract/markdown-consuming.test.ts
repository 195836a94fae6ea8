import { describe, expect, it } from "bun:test";
import { parseHtmlDocument } from "../../../src/web/extract/content-parse.ts";
import { renderMarkdown, renderMarkdownConsuming } from "../../../src/web/extract/markdown.ts";

const page = `<html><body><table><tr><td id="cell">
  <h2>Heading   with   spaces</h2>
  <p>First   paragraph with a <a href="https://example.com/x">link</a>.</p>
  <ul><li>one</li><li>two</li></ul>
  <pre>keep   this\n  as is</pre>
</td></tr></table></body></html>`;

describe("markdown of a subtree nobody reads afterwards", () => {
  it("equals the markdown of a copy, for a root inside a table cell too", () => {
    const expected = renderMarkdown(parseHtmlDocument(page).getElementById("cell")!);
    const root = parseHtmlDocument(page).getElementById("cell")!;
    expect(renderMarkdownConsuming(root)).toBe(expected);
    expect(expected).toContain("## Heading with spaces");
    expect(expected).not.toContain("|");
  });

  it("works on the subtree itself instead of a deep copy", () => {
    const root = parseHtmlDocument(page).getElementById("cell")!;
    let copies = 0;
    const clone = root.cloneNode.bind(root);
    root.cloneNode = (deep?: boolean) => {
      copies++;
      return clone(deep);
    };
    renderMarkdownConsuming(root);
    expect(copies).toBe(0);
    expect(root.parentNode).toBeNull();
    expect(renderMarkdown(root)).toBeString();
    expect(copies).toBe(1);
  });
});
