/** Price columns and the guards around payment families loaded from folders (x402/family.ts). */
import { describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { priceIn, resolvePrices } from "../../src/plugin/price.ts";
import { resolveNetworks, type X402Config } from "../../src/x402/config.ts";
import type { PaymentFamily } from "../../src/x402/family.ts";
import { loadFamilyFolders, registerFamily } from "../../src/x402/family-registry.ts";

const defaults = { maxTimeoutSeconds: 300, settlementMarginSeconds: 30, confirmationTimeoutMs: 1000, staleReservationSeconds: 900 };
const x402 = (networks: unknown[]): X402Config => ({ ...defaults, facilitator: { url: "http://127.0.0.1:1" }, networks: networks as X402Config["networks"] });

const family: PaymentFamily = {
  name: "columns-test",
  namespace: "coltest",
  knownNetworks: [{ network: "coltest:1", name: "colnet", asset: "COL", decimals: 2 }],
  priceColumns: ["columns-test", "algorand"],
  namedPayer: () => undefined,
  identify: () => ({ ok: false, reason: "invalid_payload" }),
  replayReason: "spent",
  expiringReason: "expired",
};
registerFamily(family);

describe("price columns", () => {
  it("a table may add a column for any network; each value must parse", () => {
    expect(resolvePrices({ base: "0.005", algorand: "0.01", "base-sepolia": "0.001" })).toEqual({ base: 5000, algorand: 10_000, "base-sepolia": 1000 });
    expect(() => resolvePrices({ base: "0.005", algorand: "0.01", "base-sepolia": "free" })).toThrow(/base-sepolia/);
    expect(() => resolvePrices({ base: "0.005" } as never)).toThrow(/algorand/);
  });

  it("a network charges the first of its columns the table has: name, CAIP-2 id, its family's", () => {
    const [sepolia, algorandTestnet, col] = resolveNetworks(
      x402([
        { family: "evm", network: "base-sepolia", payTo: `0x${"ab".repeat(20)}`, settlement: "remote" },
        { family: "avm", network: "algorand-testnet", payTo: "A".repeat(58), settlement: "remote" },
        { family: "columns-test", network: "colnet", payTo: "COL-PAYEE", settlement: "remote" },
      ]),
    );
    const table = resolvePrices({ base: "0.005", algorand: "0.01" });
    expect(priceIn(table, sepolia!.priceColumns)).toBe(5000);
    expect(priceIn(table, algorandTestnet!.priceColumns)).toBe(10_000);
    expect(priceIn(table, col!.priceColumns)).toBe(10_000);
    expect(priceIn(resolvePrices({ base: "0.005", algorand: "0.01", "base-sepolia": "0.001", "columns-test": "0.02" }), sepolia!.priceColumns)).toBe(1000);
    expect(priceIn(resolvePrices({ base: "0.005", algorand: "0.01", "columns-test": "0.02" }), col!.priceColumns)).toBe(20_000);
    expect(col).toMatchObject({ network: "coltest:1", name: "colnet", asset: "COL", decimals: 2 });
  });
});

describe("families from folders", () => {
  it("a network of a family nobody loaded, or outside the family's namespace, is refused", () => {
    expect(() => resolveNetworks(x402([{ family: "nobody", network: "nobody:1", payTo: "X", asset: "A", settlement: "remote" }]))).toThrow(/no payment family nobody.*x402.families/);
    expect(() => resolveNetworks(x402([{ family: "columns-test", network: "eip155:8453", payTo: "X", asset: "A", settlement: "remote" }]))).toThrow(/not a coltest: id/);
    expect(() => resolveNetworks(x402([{ family: "columns-test", network: "colnet", payTo: "X", settlement: "local" }]))).toThrow(/cannot settle locally/);
  });

  it("cannot take the built-in names, and a folder must export a family", async () => {
    expect(() => registerFamily({ ...family, name: "evm" })).toThrow(/built in/);
    const folder = mkdtempSync(join(tmpdir(), "tb-family-bad-"));
    mkdirSync(join(folder, "empty"));
    writeFileSync(join(folder, "empty", "family.ts"), "export const nothing = 1;\n");
    await expect(loadFamilyFolders([join(folder, "empty")])).rejects.toThrow(/must export `family`/);
    await expect(loadFamilyFolders([join(folder, "missing")])).rejects.toThrow(/cannot load/);
  });

  it("an EVM entry is still checked as one: a bad payTo is not let through as a family network", () => {
    const load = (networks: unknown[]) => () =>
      loadConfig({ argv: ["--payments", "on", "--public-url", "https://example.com"], env: { TOLLBOOTH_X402: JSON.stringify({ networks, facilitator: { url: "https://f.example" } }) } });
    expect(load([{ family: "evm", network: "base", payTo: "not-an-address", settlement: "remote" }])).toThrow(ConfigError);
    expect(load([{ family: "toy", network: "toy:1", payTo: "TOY", settlement: "remote" }])).not.toThrow();
  });
});
