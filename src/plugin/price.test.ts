import { describe, expect, it } from "bun:test";
import { formatDollars, parseDollars, resolvePrices } from "./price.ts";

describe("plugin/price", () => {
  it("parses dollar strings into integer micro-dollars", () => {
    expect(parseDollars("0.005")).toBe(5000);
    expect(parseDollars("1")).toBe(1_000_000);
    expect(parseDollars("5.00")).toBe(5_000_000);
    expect(parseDollars("0.000001")).toBe(1);
  });
  it("refuses what is not a plain dollar amount", () => {
    for (const bad of ["", "$1", "1e-3", "-1", "0.0000001", "01", "1.", ".5", "abc", "1,5"]) {
      expect(parseDollars(bad)).toBeUndefined();
    }
  });
  it("formats micro-dollars without float drift", () => {
    expect(formatDollars(3000 * 7)).toBe("0.021");
    expect(formatDollars(1_000_000)).toBe("1");
    expect(formatDollars(250_000)).toBe("0.25");
  });
  it("resolves one string for every network or one per network", () => {
    expect(resolvePrices("0.01")).toEqual({ base: 10_000, algorand: 10_000 });
    expect(resolvePrices({ base: "0.005", algorand: "0.01" })).toEqual({ base: 5000, algorand: 10_000 });
    expect(() => resolvePrices({ base: "0.005", algorand: "ten" })).toThrow(/algorand/);
  });
});
