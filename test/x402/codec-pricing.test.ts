/** Pure parts of the payment layer: header codec, exact pricing, extension echo, network ids, config. */
import { describe, expect, test } from "bun:test";
import { resolveNetworks, X402ConfigError, type X402Config } from "../../src/x402/config.ts";
import { checkExtensionEcho, declareBazaar } from "../../src/x402/extensions.ts";
import { decodeBase64Json, decodePaymentSignature, encodeBase64Json } from "../../src/x402/headers.ts";
import { normalizeNetwork } from "../../src/x402/networks.ts";
import { atomicToUsd, buildOffers, usdToAtomic } from "../../src/x402/pricing.ts";

const payload = {
  x402Version: 2,
  accepted: { scheme: "exact", network: "eip155:8453", amount: "5000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: "0x0000000000000000000000000000000000000001", maxTimeoutSeconds: 300 },
  payload: { signature: "0x00" },
};

describe("headers", () => {
  test("round-trips standard padded base64 JSON (including non-ASCII)", () => {
    const value = { a: "é€", b: [1, 2] };
    const text = encodeBase64Json(value);
    expect(text).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    expect(decodeBase64Json(text)).toEqual({ ok: true, value });
  });

  test("refuses what lenient decoders accept: base64url, missing padding, whitespace inside, invalid UTF-8", () => {
    const text = encodeBase64Json({ x: "??>>??" }); // encodes to + and / characters
    expect(text).toMatch(/[+/]/);
    expect(decodeBase64Json(text.replaceAll("+", "-").replaceAll("/", "_")).ok).toBe(false);
    const unpadded = encodeBase64Json({ ab: 1 });
    expect(unpadded.endsWith("=")).toBe(true);
    expect(decodeBase64Json(unpadded.replace(/=+$/, "")).ok).toBe(false);
    expect(decodeBase64Json(`${text.slice(0, 4)} ${text.slice(4)}`).ok).toBe(false);
    expect(decodeBase64Json(Buffer.from([0xff, 0xfe, 0x7b]).toString("base64")).ok).toBe(false);
    expect(decodeBase64Json("").ok).toBe(false);
    expect(decodeBase64Json("A".repeat(40_000)).ok).toBe(false);
  });

  test("PAYMENT-SIGNATURE: v2 payload accepted; v1 recognised by version; wrong shapes refused", () => {
    expect(decodePaymentSignature(encodeBase64Json(payload)).ok).toBe(true);
    expect(decodePaymentSignature(encodeBase64Json({ ...payload, x402Version: 1 }))).toMatchObject({ ok: false, version: 1 });
    expect(decodePaymentSignature(encodeBase64Json({ ...payload, accepted: { ...payload.accepted, amount: "1.5" } })).ok).toBe(false);
    expect(decodePaymentSignature(encodeBase64Json([1, 2])).ok).toBe(false);
  });
});

describe("pricing", () => {
  test("USD strings become exact atomic amounts without floats", () => {
    expect(usdToAtomic("0.005", 6)).toBe(5000n);
    expect(usdToAtomic("0.1", 6)).toBe(100_000n);
    expect(usdToAtomic("0.3", 6) - usdToAtomic("0.1", 6) * 3n).toBe(0n); // 0.1 * 3 !== 0.3 in floats
    expect(usdToAtomic("12.345678", 6)).toBe(12_345_678n);
    expect(usdToAtomic("1.50", 6)).toBe(1_500_000n);
    expect(atomicToUsd(5000n, 6)).toBe("0.005");
    expect(atomicToUsd(2_000_000n, 6)).toBe("2");
  });

  test("refuses more precision than the token, negatives, exponents and junk", () => {
    for (const bad of ["0.0000001", "-1", "1e-3", "", " 1", "0x10", "1.", ".5", "01"]) expect(() => usdToAtomic(bad, 6)).toThrow();
  });

  test("one offer per network with a price; per-network prices by short name or CAIP-2 id; zero refused", () => {
    const config: X402Config = {
      maxTimeoutSeconds: 300, settlementMarginSeconds: 30, confirmationTimeoutMs: 1000, staleReservationSeconds: 900,
      facilitator: { url: "http://127.0.0.1:1" },
      networks: [
        { family: "evm", network: "base", payTo: "0x0000000000000000000000000000000000000001", settlement: "remote" },
        { family: "avm", network: "algorand", payTo: "A".repeat(58), settlement: "remote" },
      ],
    };
    const networks = resolveNetworks(config);
    const offers = buildOffers({ base: "0.003", "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k": "0.006" }, networks, { maxTimeoutSeconds: 300, extraFor: () => ({}) });
    expect(offers.map((o) => [o.network, o.amount, o.asset])).toEqual([
      ["eip155:8453", "3000", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"],
      ["algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k", "6000", "31566704"],
    ]);
    expect(buildOffers({ base: "0.01" }, networks, { maxTimeoutSeconds: 300, extraFor: () => ({}) })).toHaveLength(1);
    expect(() => buildOffers("0", networks, { maxTimeoutSeconds: 300, extraFor: () => ({}) })).toThrow();
  });
});

describe("extensions", () => {
  const bazaar = { bazaar: declareBazaar({ method: "POST", input: { url: "https://example.com" }, inputSchema: { type: "object" } }) };
  test("echo unchanged or with client additions passes; a changed or missing declared field fails", () => {
    const echoed = structuredClone(bazaar) as { bazaar: { info: { input: Record<string, unknown> } } };
    expect(checkExtensionEcho(bazaar, echoed)).toBe(true);
    expect(checkExtensionEcho(bazaar, { ...echoed, "payment-identifier": { info: { id: "pay_0123456789abcdef" } } })).toBe(true);
    expect(checkExtensionEcho(bazaar, undefined)).toBe(true); // a client that echoes nothing altered nothing
    const changed = structuredClone(echoed);
    changed.bazaar.info.input.body = { url: "https://evil.example" };
    expect(checkExtensionEcho(bazaar, changed)).toBe(false);
    expect(checkExtensionEcho(bazaar, { other: {} })).toBe(false);
  });
});

describe("networks and config", () => {
  test("Algorand ids: full genesis hash normalised to the 32-character form", () => {
    expect(normalizeNetwork("algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73ktiC1qzkkit8=")).toBe("algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k");
    expect(normalizeNetwork("eip155:8453")).toBe("eip155:8453");
  });

  test("custom networks need their token facts; local settlement needs a key; a bad key is refused without echoing it", () => {
    const base = { maxTimeoutSeconds: 300, settlementMarginSeconds: 30, confirmationTimeoutMs: 1000, staleReservationSeconds: 900 };
    const payTo = "0x0000000000000000000000000000000000000001";
    expect(() => resolveNetworks({ ...base, networks: [{ family: "evm", network: "eip155:31337", payTo, settlement: "local", rpcUrl: "http://127.0.0.1:1", settlerPrivateKey: `0x${"11".repeat(32)}` }] })).toThrow(X402ConfigError);
    expect(() => resolveNetworks({ ...base, networks: [{ family: "evm", network: "base", payTo, settlement: "local", rpcUrl: "http://127.0.0.1:1" }] })).toThrow(/settler key/);
    const secret = "0xnot-a-key-but-secret-looking-1234";
    try {
      resolveNetworks({ ...base, networks: [{ family: "evm", network: "base", payTo, settlement: "local", rpcUrl: "http://127.0.0.1:1", settlerPrivateKey: secret }] });
      throw new Error("accepted");
    } catch (error) {
      expect(String(error)).not.toContain(secret);
    }
  });
});
