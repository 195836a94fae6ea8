import { describe, expect, it } from "bun:test";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../src/json-depth.ts";

describe("nestsDeeperThan", () => {
  it("counts arrays and objects, up to the limit and one past it", () => {
    expect(nestsDeeperThan("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan('{"a":'.repeat(65) + "1" + "}".repeat(65))).toBe(true);
  });

  it("skips brackets inside strings, escaped quotes included", () => {
    expect(nestsDeeperThan(JSON.stringify({ s: "[".repeat(1000) }))).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ s: '\\"' + "{".repeat(1000) }))).toBe(false);
  });

  it("counts siblings apart: depth, not the number of brackets", () => {
    expect(nestsDeeperThan(`[${Array.from({ length: 1000 }, () => "[[]]").join(",")}]`)).toBe(false);
  });
});
