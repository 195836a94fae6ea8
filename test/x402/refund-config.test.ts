/** Refund key settings: optional, validated like the settlement keys, read from a file, never echoed in errors. */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import algosdk from "algosdk";
import { resolveNetworks, X402ConfigError, type X402Config } from "../../src/x402/config.ts";
import { refundAmountAtomic } from "../../src/x402/refund.ts";

const base = { maxTimeoutSeconds: 300, settlementMarginSeconds: 30, confirmationTimeoutMs: 1000, staleReservationSeconds: 900 };
const payTo = `0x${"ab".repeat(20)}`;
const evm = (extra: Record<string, unknown>): X402Config => ({
  ...base,
  facilitator: { url: "http://127.0.0.1:1" },
  networks: [{ family: "evm", network: "base", payTo, settlement: "remote", ...extra } as X402Config["networks"][number]],
});

describe("refund key settings", () => {
  it("are optional: without them no refund key is resolved", () => {
    const [n] = resolveNetworks(evm({}));
    expect(n?.family === "evm" && n.refundPrivateKey).toBeFalsy();
  });

  it("read an EVM refund key inline or from a file, and need rpcUrl", () => {
    const key: string = `0x${"42".repeat(32)}`;
    const [inline] = resolveNetworks(evm({ rpcUrl: "http://127.0.0.1:1", refundPrivateKey: key }));
    expect(inline?.family === "evm" ? inline.refundPrivateKey : undefined).toBe(key as `0x${string}`);
    const file = join(mkdtempSync(join(tmpdir(), "tb-refund-key-")), "key");
    writeFileSync(file, `${key}\n`);
    const [fromFile] = resolveNetworks(evm({ rpcUrl: "http://127.0.0.1:1", refundPrivateKeyFile: file }));
    expect(fromFile?.family === "evm" ? fromFile.refundPrivateKey : undefined).toBe(key as `0x${string}`);
    expect(() => resolveNetworks(evm({ refundPrivateKey: key }))).toThrow(/refund key needs rpcUrl/);
    expect(() => resolveNetworks(evm({ rpcUrl: "http://127.0.0.1:1", refundPrivateKey: key, refundPrivateKeyFile: file }))).toThrow(X402ConfigError);
  });

  it("refuse a malformed key without echoing it", () => {
    const secret = "0xnot-a-key-but-secret-material";
    let message = "";
    try {
      resolveNetworks(evm({ rpcUrl: "http://127.0.0.1:1", refundPrivateKey: secret }));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("refund key must be");
    expect(message).not.toContain("secret-material");
  });

  it("read an Algorand refund mnemonic, which needs algodUrl", () => {
    const mnemonic = algosdk.secretKeyToMnemonic(algosdk.generateAccount().sk);
    const avm = (extra: Record<string, unknown>): X402Config => ({
      ...base,
      facilitator: { url: "http://127.0.0.1:1" },
      networks: [{ family: "avm", network: "algorand", payTo: "A".repeat(58), settlement: "remote", ...extra } as X402Config["networks"][number]],
    });
    const [n] = resolveNetworks(avm({ algodUrl: "http://127.0.0.1:1", refundMnemonic: mnemonic }));
    expect(n?.family === "avm" && n.refundMnemonic).toBe(mnemonic);
    expect(() => resolveNetworks(avm({ refundMnemonic: mnemonic }))).toThrow(/needs algodUrl/);
    expect(() => resolveNetworks(avm({ algodUrl: "http://127.0.0.1:1", refundMnemonic: "one two three" }))).toThrow(/25 words/);
  });

  it("converts micro-dollars to atomic units exactly", () => {
    expect(refundAmountAtomic(2000, 6)).toBe(2000n);
    expect(refundAmountAtomic(2000, 18)).toBe(2_000_000_000_000_000n);
  });
});
