import { describe, expect, it } from "bun:test";
import { canonicalizePdfText } from "../../../src/web/pdf/pdf-text.ts";

describe("pdf-text", () => {
  it("canonicalizes like web text: spacing, CRLF, blank runs, ends", () => {
    expect(canonicalizePdfText("\n\n  a \t b  \r\n\r\n\r\nc\u00a0\u00a0d\n\n\n  \n")).toBe("a b\n\nc d");
  });

  it("drops control characters and BOMs that PDF text layers carry", () => {
    expect(canonicalizePdfText("\u0002x\u0000y\u000cz\ufeff\u0085!")).toBe("xyz!");
  });

  it("folds ligatures and presentation forms, and drops controls beside them", () => {
    expect(canonicalizePdfText("\ufb01\u0002le \ufefb\ufeff \u0085x\ufe70")).toBe("file \u0644\u0627 x \u064b");
  });

  it("makes lone surrogates U+FFFD and keeps pairs", () => {
    expect(canonicalizePdfText("x\ud800y \ud83d\ude00")).toBe("x\ufffdy \ud83d\ude00");
  });
});
