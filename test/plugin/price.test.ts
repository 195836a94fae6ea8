import { describe, expect, it } from "bun:test";
import { formatDollars, listPrice, parseDollars, resolvePrices } from "../../src/plugin/price.ts";

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
  it("takes the columns a table must have from the families it is given, not from names of its own", () => {
    // Two families: "alpha" prices by its own column; "beta" by its own, else alpha's.
    const families = [["alpha"], ["beta", "alpha"]];
    expect(resolvePrices("0.01", families)).toEqual({ alpha: 10_000, beta: 10_000 });
    expect(resolvePrices({ alpha: "0.002" }, families)).toEqual({ alpha: 2000 });
    expect(resolvePrices({ beta: "0.003", alpha: "0.002", "alpha-testnet": "0.001" }, families)).toEqual({ alpha: 2000, beta: 3000, "alpha-testnet": 1000 });
    expect(() => resolvePrices({ beta: "0.003" }, families)).toThrow("price for alpha is missing");
    expect(listPrice({ beta: 3000, alpha: 2000 }, families)).toBe(2000);
    // The built-in families by default: EVM's base and AVM's algorand.
    expect(() => resolvePrices({ base: "0.005" })).toThrow("price for algorand is missing");
    expect(listPrice(resolvePrices({ algorand: "0.01", base: "0.005" }))).toBe(5000);
  });
});
