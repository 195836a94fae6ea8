/**
 * Markdown (markdown.ts, through markdown-node.ts's DOM view for turndown) of the subtree extraction chose:
 * turndown edits its input, so it works on the subtree itself, taken out of its tree, never on a copy.
 */
import { describe, expect, it } from "bun:test";
import { parsePage } from "../../../src/web/extract/content-parse.ts";
import { selectFirstIn, type Element } from "../../../src/web/extract/dom.ts";
import { renderMarkdownConsuming } from "../../../src/web/extract/markdown.ts";

const page = `<html><body><table><tr><td id="cell">
  <h2>Heading   with   spaces</h2>
  <p>First   paragraph with a <a href="https://example.com/x" title="X">link</a>.</p>
  <ol start="3"><li>three</li><li>four</li></ol>
  <pre><code>keep   this\n  as is</code></pre>
  <table><tr><th>a</th><th>b|c</th></tr><tr><td colspan="2">wide</td></tr></table>
</td></tr></table></body></html>`;

const cell = () => selectFirstIn(parsePage(page).body, "#cell") as Element;

describe("markdown of a subtree nobody reads afterwards", () => {
  it("renders headings, links, numbered lists, preformatted text and data tables", () => {
    const markdown = renderMarkdownConsuming(cell());
    expect(markdown).toContain("## Heading with spaces");
    expect(markdown).toContain('First paragraph with a [link](https://example.com/x "X").');
    expect(markdown).toContain("3.  three\n4.  four");
    expect(markdown).toContain("```\nkeep   this\n  as is\n```");
    expect(markdown).toContain("| a | b\\|c |\n| --- | --- |\n| wide | |");
  });

  it("works on the subtree itself: taken out of its tree, no copy made", () => {
    const root = cell();
    let copies = 0;
    const clone = root.cloneNode.bind(root);
    root.cloneNode = ((deep?: boolean) => {
      copies++;
      return clone(deep);
    }) as typeof root.cloneNode;
    renderMarkdownConsuming(root);
    expect(copies).toBe(0);
    expect(root.parent).toBeNull();
  });
});
