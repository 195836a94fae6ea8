import { describe, expect, it } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { firstMatchIn, MAX_SELECTOR_STEPS, outermostMatchesIn, SelectorBudget } from "../../../src/web/extract/caller-selectors.ts";
import { parsePage } from "../../../src/web/extract/content-parse.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

// css-select tries every chain of 6 ancestors out of 500 for each element: without a budget this never ends.
const deep = `<html><body><main>${"<div>".repeat(500)}deep text${"</div>".repeat(500)}</main></body></html>`;
const EXPLODING = "nope div div div div div div";

function errorOf(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("a caller's selector", () => {
  it("is stopped with CONTENT_TOO_COMPLEX naming it when its matching explodes (web/read's selector)", () => {
    const error = errorOf(() => extractHtmlSync({ html: deep, url: "https://deep.example/", markdown: false, selector: EXPLODING }));
    expect(error.code).toBe("CONTENT_TOO_COMPLEX");
    expect(error.message).toContain(`selector "${EXPLODING}"`);
    expect(error.message).toContain(String(MAX_SELECTOR_STEPS));
  });

  it("is matched in full on the same page when it is ordinary", () => {
    const read = (selector: string) => extractHtmlSync({ html: deep, url: "https://deep.example/", markdown: false, selector }).text;
    expect(read("main div div div")).toBe("deep text");
    expect(read("div:not(:has(div))")).toBe("deep text");
  });

  it("shares one budget with ignore_selectors on a page", () => {
    const page = parsePage(deep);
    const budget = new SelectorBudget(1_000);
    expect(outermostMatchesIn(page.document, [{ selector: ".ad", name: "ignore_selectors[0]" }], budget)).toEqual([]);
    // The walk above spent about 500 steps: the same walk again goes past 1,000.
    const error = errorOf(() => firstMatchIn(page.document, { selector: ".none", name: 'selector ".none"' }, budget));
    expect(error.code).toBe("CONTENT_TOO_COMPLEX");
    expect(error.message).toContain('selector ".none"');
  });

  it("is SELECTOR_INVALID naming it when css-select cannot compile it", () => {
    const error = errorOf(() => extractHtmlSync({ html: deep, url: "https://deep.example/", markdown: false, selector: "div[[" }));
    expect([error.code, error.status]).toEqual(["SELECTOR_INVALID", 400]);
    expect(error.message).toContain('selector "div[["');
  });
});
