import { describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { normalizeText } from "../../../src/web/text/canonical-text.ts";
import { extractHtml } from "../../../src/web/extract/extract.ts";
import { limitText, sha256Hex } from "../../../src/web/text/text-output.ts";

describe("web/canonical-text", () => {
  it("collapses whitespace, trims lines and keeps at most one blank line", () => {
    expect(normalizeText("\n\n  a \t b  \r\n\r\n\r\n\u00a0c\u2003d  \n\n\n")).toBe("a b\n\nc d");
  });

  it("ends lines at block elements and keeps inline text together", async () => {
    const { text } = await extractHtml({
      html: "<body><div><span>one</span> <b>two</b></div><div>three<br>four</div><ul><li>five</li><li>six</li></ul><p>seven</p><p>eight</p></body>",
      url: "https://example.com/",
      selector: "body",
      markdown: false,
    });
    expect(text).toBe("one two\nthree\nfour\n\nfive\nsix\n\nseven\n\neight");
  });

  it("keeps the line structure of pre blocks", async () => {
    const { text } = await extractHtml({ html: "<pre>  x = 1\n  y = 2</pre>", url: "https://example.com/", selector: "pre", markdown: false });
    expect(text).toBe("x = 1\ny = 2");
  });
});

describe("web/text-output", () => {
  it("truncates by code point, never splitting a surrogate pair", () => {
    const text = "ab😀😀😀cd";
    const cut = limitText(text, 3);
    expect(cut).toEqual({ value: "ab😀", characters: 3, truncated: true });
    expect(limitText(text, 7)).toEqual({ value: text, characters: 7, truncated: false });
  });

  it("makes text well-formed so the hash matches what a client receives", () => {
    const lone = "a\ud800b";
    const { value } = limitText(lone, 10);
    expect(value).toBe("a\ufffdb");
    const clientHash = createHash("sha256").update(Buffer.from(JSON.parse(JSON.stringify(value)) as string, "utf8")).digest("hex");
    expect(sha256Hex(value)).toBe(clientHash);
  });
});
