import { describe, expect, it } from "bun:test";
import { priceByUnits } from "../../src/paid-call/delivery.ts";

describe("paid-call/delivery", () => {
  it("prices a fixed part plus a price per unit, per column, in exact micro-dollars", () => {
    expect(priceByUnits({ base: "0.005", algorand: "0.01" }, { base: "0.003", algorand: "0.006" }, 10)).toEqual({ base: "0.035", algorand: "0.07" });
    expect(priceByUnits({ base: "0.005" }, { base: "0.003" }, 0)).toEqual({ base: "0.005" });
    expect(priceByUnits("0.01", "0.001", 3)).toBe("0.013");
  });

  it("refuses units that are not a whole number at or above zero", () => {
    expect(() => priceByUnits("0.01", "0.001", -1)).toThrow(RangeError);
    expect(() => priceByUnits("0.01", "0.001", 1.5)).toThrow(RangeError);
  });
});
