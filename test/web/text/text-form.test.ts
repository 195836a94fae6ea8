import { describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { normalizeText } from "../../../src/web/text/canonical-text.ts";
import { extractHtml } from "../../../src/web/extract/extract.ts";
import { countCodePoints, limitText, sha256Hex } from "../../../src/web/text/text-output.ts";

describe("web/canonical-text", () => {
  it("collapses whitespace, trims lines and keeps at most one blank line", () => {
    expect(normalizeText("\n\n  a \t b  \r\n\r\n\r\n\u00a0c\u2003d  \n\n\n")).toBe("a b\n\nc d");
  });

  it("gives what its definition line by line gives, on random text and on every UTF-16 unit as whitespace or not", () => {
    // The definition: lines (any line ending) with whitespace runs made one space and trimmed, blank runs made
    // one blank line, none leading or trailing; normalizeText computes it in one scan.
    const byLines = (input: string): string => {
      const out: string[] = [];
      let blank = true;
      for (const line of input.toWellFormed().replace(/\r\n?/g, "\n").split("\n")) {
        const clean = line.replace(/[^\S\n]+/g, " ").trim();
        if (clean === "") {
          if (!blank) out.push("");
          blank = true;
        } else {
          out.push(clean);
          blank = false;
        }
      }
      while (out.at(-1) === "") out.pop();
      return out.join("\n");
    };
    const pieces = ["a", "bc", " ", "  ", "\n", "\r", "\r\n", "\t", "\v", "\f", "\u00a0", "\u1680", "\u2002", "\u2028", "\u2029", "\u3000", "\ufeff", "\u200b", "\u0085", "\u180e", "\ud800", "\udc00", "\ud83d\ude00", "\n\n\n"];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const input = Array.from({ length: random(14) }, () => pieces[random(pieces.length)]).join("");
      expect(normalizeText(input)).toBe(byLines(input));
    }
    for (let code = 0; code < 0x10000; code += 1) {
      const c = String.fromCharCode(code);
      const input = `${c}a${c}b ${c}${c}\n${c}`;
      if (normalizeText(input) !== byLines(input)) expect([code, normalizeText(input)]).toEqual([code, byLines(input)]);
    }
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
  it("counts code points: a surrogate pair once, a lone surrogate once, BMP text by its length", () => {
    expect(countCodePoints("")).toBe(0);
    expect(countCodePoints("abc d\u00e9\uffff")).toBe(7);
    expect(countCodePoints("a\ud83d\ude00b")).toBe(3);
    expect(countCodePoints("\ud800a\udc00\ud83d")).toBe(4);
    expect(countCodePoints("\udc00\ud800\udc00")).toBe(2);
  });

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
