import { describe, expect, it } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";
import { checkIgnoreSelectors, MAX_IGNORE_SELECTORS } from "../../../src/web/filters/ignore-selectors.ts";

const extractIgnoring = (html: string, ignoreSelectors: string[]) => extractHtmlSync({ html, url: "https://shop.example/", markdown: false, ignoreSelectors });

const page = `<!doctype html><html><head><title>Shop</title></head><body>
<main><h1>Blue kettle</h1><p>A kettle that boils a litre in three minutes, with a steel body and a blue handle.</p>
<div class="ad"><p>Buy now!</p><p>Limited offer</p><div class="ad"><p>Nested ad line</p></div></div>
<p>Price: 30 EUR. Ships in two days from our warehouse; returns are free for thirty days.</p>
<p class="stamp">Page generated at 10:32:05 for visitor 88213</p></main></body></html>`;

describe("ignoreSelectors", () => {
  it("removes what the selectors match, counting an element inside a removed one once", () => {
    const { text, ignored } = extractIgnoring(page, [".ad", "p.stamp"]);
    expect(ignored).toEqual({ elements: 2, lines: 4 });
    expect(text).not.toContain("Buy now");
    expect(text).not.toContain("10:32:05");
    expect(text).toContain("Blue kettle");
  });

  it("extracts the page as without them when nothing matched", () => {
    const { ignored, ...rest } = extractIgnoring(page, [".none"]);
    expect(ignored).toEqual({ elements: 0, lines: 0 });
    expect(rest).toEqual(extractHtmlSync({ html: page, url: "https://shop.example/", markdown: false }));
  });

  it("can remove what the page says of itself (its title)", () => {
    expect(extractIgnoring(page, ["head > title"]).title).toBe("Blue kettle");
  });

  it("selects in the page's browser shape (implied body and tbody)", () => {
    const bare = "<title>t</title><table><tr><td>keep</td></tr></table><div>x</div>";
    expect(extractIgnoring(bare, ["body > table > tbody > tr"]).ignored?.elements).toBe(1);
  });
});

describe("the matching budget", () => {
  it("stops a selector whose descendant chains explode on a deep page with CONTENT_TOO_COMPLEX naming it", () => {
    // css-select tries every chain of 6 ancestors out of 500 for each element: without the budget this never ends.
    const deep = `<html><body>${"<div>".repeat(500)}x${"</div>".repeat(500)}</body></html>`;
    try {
      extractIgnoring(deep, [".ad", "nope div div div div div div"]);
      throw new Error("expected CONTENT_TOO_COMPLEX");
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe("CONTENT_TOO_COMPLEX");
      expect((error as ApiError).message).toContain(`ignore_selectors[1] "nope div div div div div div"`);
    }
    // The same page with ordinary selectors is matched in full.
    expect(extractIgnoring(deep, [".ad", "div > div:empty", ":has(nope)"]).ignored?.elements).toBe(0);
  });
});

describe("extraction with ignoreSelectors", () => {
  it("extracts the page without the ignored elements, and as before without selectors", () => {
    const filtered = extractHtmlSync({ html: page, url: "https://shop.example/", markdown: false, ignoreSelectors: [".ad", ".stamp"] });
    expect(filtered.text).toContain("Price: 30 EUR");
    expect(filtered.text).not.toContain("Buy now");
    expect(filtered.text).not.toContain("10:32:05");
    expect(filtered.ignored).toEqual({ elements: 2, lines: 4 });
    const plain = extractHtmlSync({ html: page, url: "https://shop.example/", markdown: false });
    expect(plain).toEqual(extractHtmlSync({ html: page, url: "https://shop.example/", markdown: false }));
    expect(plain.text).toContain("10:32:05");
  });
});

describe("checkIgnoreSelectors", () => {
  it("names an invalid selector and holds the count", () => {
    for (const [selectors, text] of [
      [["p", "div["], 'ignore_selectors[1] "div["'],
      [["p", "  "], "ignore_selectors[1]"],
      [Array.from({ length: MAX_IGNORE_SELECTORS + 1 }, () => "p"), `at most ${MAX_IGNORE_SELECTORS}`],
    ] as const) {
      try {
        checkIgnoreSelectors(selectors);
        throw new Error("expected SELECTOR_INVALID");
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).code).toBe("SELECTOR_INVALID");
        expect((error as ApiError).message).toContain(text);
      }
    }
    expect(() => checkIgnoreSelectors([".ad", "#x > p:nth-child(2)", "[data-ts]"])).not.toThrow();
  });
});

describe("the source the selectors see", () => {
  it("is the extractor's: an unclosed title is closed, so the body's elements can be selected", () => {
    const unclosed = `<html><head><title>Story<script>ad()</script></head><body><main><h1>Story</h1><p>${"The story itself, told at length. ".repeat(10)}</p><p class="stamp">Generated 10:32</p></main></body></html>`;
    const filtered = extractHtmlSync({ html: unclosed, url: "https://news.example/", markdown: false, ignoreSelectors: [".stamp"] });
    expect(filtered.ignored).toEqual({ elements: 1, lines: 1 });
    expect(filtered.text).toContain("The story itself");
    expect(filtered.text).not.toContain("10:32");
  });

  it("keeps raw-text elements for a scoped extraction (a selector may name one)", () => {
    const withData = `<html><body><textarea id="data">price 30</textarea><p class="x">noise</p></body></html>`;
    const filtered = extractHtmlSync({ html: withData, url: "https://shop.example/", markdown: false, selector: "#data", ignoreSelectors: [".x"] });
    expect(filtered.ignored).toEqual({ elements: 1, lines: 1 });
    expect(filtered.text).toBe("price 30");
  });
});
