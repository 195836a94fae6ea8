/** The ir-research set's builder (scripts/bench/ir-research-set.ts) reads its gold and pages from bytes; no snapshot needed. */
import { describe, expect, it } from "bun:test";
import { pageId, readGold, readPage } from "../../../scripts/bench/ir-research-set.ts";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === "string" ? [...Buffer.from(part, "latin1")] : part)));

describe("ir-research set builder", () => {
  it("reads a windows-1252 gold (curly quotes as 0x92) as a line per paragraph, blank lines and runs of spaces gone", () => {
    const gold = bytes("America", [0x92], "s Richest Counties\r\n\r\nThe nation", [0x92], "s capital  is\ta great place.\r\n\r\n\r\nSecond ", [0x97], " paragraph.\r\n");
    expect(readGold(gold)).toBe("America’s Richest Counties\nThe nation’s capital is a great place.\nSecond — paragraph.");
  });

  it("reads a UTF-8 gold as UTF-8, its BOM dropped", () => {
    expect(readGold(new TextEncoder().encode("\uFEFFJürgen Hubbert\n\nSaid so.\n"))).toBe("Jürgen Hubbert\nSaid so.");
  });

  it("decodes a page as the fetcher does and stores it as UTF-8 with its meta charset saying so", () => {
    const latin = readPage(bytes('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body><p>Gr', [0xfc], "n ", [0xa3], "219</p></body></html>"));
    expect(latin.encoding).toBe("windows-1252");
    expect(latin.html).toContain("Grün £219");
    expect(latin.html).toContain("charset=utf-8");
    const undeclared = readPage(new TextEncoder().encode("<p>naïve café</p>"));
    expect(undeclared).toEqual({ html: "<p>naïve café</p>", encoding: "utf-8" });
  });

  it("names pages by source, group and file", () => {
    expect(pageId("big9", "2005", "amd (10).htm")).toBe("big9-2005-amd-10");
    expect(pageId("chaos", "2017", "Afghanistan (8).HTML")).toBe("chaos-2017-afghanistan-8");
  });
});
