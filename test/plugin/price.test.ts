import { describe, expect, it } from "bun:test";
import { formatDollars, listPrice, parseDollars, paymentsOffPricing, pricingFor, resolvePrices } from "../../src/plugin/price.ts";

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
  it("takes the networks a table must price from the configured networks, not from names of its own", () => {
    // Two configured networks: "alpha" charges by its own column; "beta-net" by its own, else alpha's.
    const pricing = pricingFor([
      { name: "alpha", network: "a:1", priceColumns: ["alpha", "a:1"] },
      { name: "beta-net", network: "b:1", priceColumns: ["beta-net", "b:1", "beta", "alpha"] },
    ]);
    expect(pricing.networks.map((n) => [n.label, n.column])).toEqual([["Alpha", "alpha"], ["Beta Net", "beta"]]);
    expect(resolvePrices("0.01", pricing)).toEqual({ alpha: 10_000, beta: 10_000 });
    expect(resolvePrices({ alpha: "0.002" }, pricing)).toEqual({ alpha: 2000 });
    expect(resolvePrices({ beta: "0.003", alpha: "0.002", "alpha-testnet": "0.001" }, pricing)).toEqual({ alpha: 2000, beta: 3000, "alpha-testnet": 1000 });
    // The error names the configured network the table leaves unpriced and the columns that would price it.
    expect(() => resolvePrices({ beta: "0.003" }, pricing)).toThrow("price for alpha is missing: this server takes payments on alpha (a:1)");
    expect(() => resolvePrices({ base: "0.003", algorand: "0.003" }, pricing)).toThrow("by one of its columns (alpha, a:1)");
    expect(listPrice({ beta: 3000, alpha: 2000 }, pricing)).toBe(2000);
    // A server configured with Base only loads a table that prices Base alone.
    const baseOnly = pricingFor([{ name: "base", network: "eip155:8453", priceColumns: ["base", "eip155:8453"] }]);
    expect(resolvePrices({ base: "0.01" }, baseOnly)).toEqual({ base: 10_000 });
    expect(resolvePrices("0.01", baseOnly)).toEqual({ base: 10_000 });
    // With no configuration given: Base and Algorand, each required.
    expect(() => resolvePrices({ base: "0.005" })).toThrow("price for algorand is missing");
    expect(listPrice(resolvePrices({ algorand: "0.01", base: "0.005" }))).toBe(5000);
  });
  it("with payments off asks a table for one well-formed column; the list price is Base's, else Algorand's, else the first column", () => {
    const off = pricingFor([]);
    expect(off).toBe(paymentsOffPricing);
    expect(off.networks.map((n) => n.label)).toEqual(["Base", "Algorand"]);
    expect(resolvePrices("0.01", off)).toEqual({ base: 10_000, algorand: 10_000 });
    expect(resolvePrices({ toy: "0.004" }, off)).toEqual({ toy: 4000 });
    expect(() => resolvePrices({}, off)).toThrow("a price table needs at least one column");
    expect(() => resolvePrices({ toy: "four" }, off)).toThrow('price for toy must be a dollar string like "0.005", got "four"');
    expect(listPrice({ toy: 4000, algorand: 3000 }, off)).toBe(3000);
    expect(listPrice({ toy: 4000, algorand: 3000, base: 2000 }, off)).toBe(2000);
    expect(listPrice({ toy: 4000, other: 1000 }, off)).toBe(4000);
  });
});
