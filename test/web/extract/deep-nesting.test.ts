import { describe, expect, it } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

describe("hostile nesting", () => {
  it("refuses a page nested tens of thousands deep with CONTENT_TOO_COMPLEX, not an internal error", () => {
    const depth = 40_000;
    const html = `<html><body>${"<div>".repeat(depth)}deep text${"</div>".repeat(depth)}</body></html>`;
    expect(html.length).toBeLessThan(1024 * 1024);
    let thrown: unknown;
    try {
      extractHtmlSync({ html, url: "https://example.com/", markdown: false });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe("CONTENT_TOO_COMPLEX");
    expect((thrown as ApiError).status).toBe(422);
  });
});
