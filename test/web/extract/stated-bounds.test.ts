/**
 * The search for the block holding a page's stated parts is bounded (a hostile page states thousands of parts or nests
 * thousands deep): it compares at most MAX_STATED_PARTS parts and descends at most 40 levels.
 */
import { describe, expect, it } from "bun:test";
import { MAX_STATED_PARTS, statedPartsBlock } from "../../../src/web/extract/content-stated.ts";
import { cutUnreadMarkup, parsePage } from "../../../src/web/extract/content-parse.ts";
import { elementChildrenOf } from "../../../src/web/extract/dom.ts";

const body = (html: string) => parsePage(cutUnreadMarkup(`<html><body>${html}</body></html>`)).body;

describe("the stated-parts search", () => {
  it("compares only the first MAX_STATED_PARTS parts", () => {
    const absent = Array.from({ length: MAX_STATED_PARTS }, (_, i) => `absent line ${i}`);
    const present = Array.from({ length: 3 * MAX_STATED_PARTS }, (_, i) => `present line ${i}`);
    const page = body(`<div><div class="recipe">${present.map((line) => `<p>${line}</p>`).join("")}</div><p>other</p></div>`);
    expect(statedPartsBlock(page, present)?.attribs.class).toBe("recipe");
    expect(statedPartsBlock(page, [...absent, ...present])).toBeUndefined();
  });

  it("descends at most 40 levels", () => {
    const page = body(`${"<div>".repeat(60)}<p>one line</p><p>two lines</p><p>three lines</p>${"</div>".repeat(60)}`);
    const block = statedPartsBlock(page, ["one line", "two lines", "three lines"]);
    expect(block?.name).toBe("div");
    expect(elementChildrenOf(block as never)[0]?.name).toBe("div");
  });
});
