import { describe, expect, it } from "bun:test";
import { canonicalizeText, countCodePoints, cutCodePoints, sha256Hex } from "./pdf-text.ts";

describe("pdf-text", () => {
  it("canonicalizes lines: spacing, controls, CRLF, blank runs, ends", () => {
    expect(canonicalizeText("\n\n  a \t b  \r\n\r\n\r\n\u0000c\u00a0\u00a0d\n\n\n  \n")).toBe("a b\n\nc d");
  });

  it("makes lone surrogates U+FFFD and keeps pairs", () => {
    expect(canonicalizeText("x\ud800y \ud83d\ude00")).toBe("x\ufffdy \ud83d\ude00");
  });

  it("counts and cuts by code point, never inside a surrogate pair", () => {
    const text = "a\ud83d\ude00b\ud83d\ude00";
    expect(countCodePoints(text)).toBe(4);
    expect(cutCodePoints(text, 2)).toBe("a\ud83d\ude00");
    expect(cutCodePoints(text, 3)).toBe("a\ud83d\ude00b");
    expect(cutCodePoints(text, 10)).toBe(text);
    expect(cutCodePoints(text, 0)).toBe("");
  });

  it("hashes UTF-8 as lowercase hex", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("\u00e9")).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });
});
