/**
 * Price tables are checked against the networks this server takes payments on, not against a
 * two-name list (issue 27): with Base alone configured, a file priced `{ base: "0.01" }` loads, is
 * offered at that price and the documents quote Base only; the same file on a server taking Base and
 * Algorand is refused naming Algorand; with payments off one well-formed column is enough.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { loadConfiguredRegistry } from "../../src/loader/registry.ts";
import { loadConfig } from "../../src/config.ts";
import { RegistryError } from "../../src/plugin/registry.ts";
import { decodePaymentRequired } from "../../src/x402/headers.ts";
import { pluginFolder, pluginSource } from "../support/plugin-files.ts";
import { type TestService, testService } from "../support/service.ts";

const baseOnly = pluginFolder({ "text-reverse.ts": pluginSource("text.reverse", "POST /v1/text/reverse", `{ base: "0.01" }`) });
const payTo = { base: `0x${"12".repeat(20)}`, algorand: "A".repeat(58) };
const paid = (...networks: ("base" | "algorand")[]) => ["--payments", "on", ...networks.flatMap((n) => [`--pay-to-${n}`, payTo[n]]), "--facilitator-url", "http://127.0.0.1:9/"];

let service: TestService;
beforeAll(async () => {
  service = await testService([...paid("base"), "--plugins", baseOnly, "--render", "off", "--extract-workers", "0"]);
});
afterAll(() => service?.close());

describe("a server taking payments on Base only", () => {
  it("loads a table that prices Base alone and offers that price", async () => {
    const res = await service.request("/v1/text/reverse", { method: "POST", json: { text: "abc" } });
    expect(res.status).toBe(402);
    const required = decodePaymentRequired(res.headers.get("payment-required") ?? "");
    if (!required.ok) throw new Error(required.reason);
    expect(required.value.accepts.map((a) => [a.network, a.amount])).toEqual([["eip155:8453", "10000"]]);
  });

  it("quotes Base only in its documents", async () => {
    const skillMd = await (await service.request("/skill.md")).text();
    expect(skillMd).toContain("- Price (USDC): Base $0.01");
    expect(skillMd).not.toContain("Algorand $");
    const pilot = await (await service.request("/pilot.md")).text();
    expect(pilot).toContain("| id | call | Base |");
    expect(pilot).toContain("| text.reverse | POST /v1/text/reverse | $0.01 |");
    const openapi = (await (await service.request("/openapi.json")).json()) as { paths: Record<string, { post: { description: string; "x-payment-info": { price_usd: unknown } } }> };
    const reverse = openapi.paths["/v1/text/reverse"]!.post;
    expect(reverse.description).toContain("Price (USDC): Base 0.01.");
    expect(reverse["x-payment-info"].price_usd).toEqual({ base: "0.01" });
    // Built-in files keep pricing both built-in columns; only the configured network's is quoted.
    expect(openapi.paths["/v1/web/read"]!.post["x-payment-info"].price_usd).toEqual({ base: "0.005" });
    const capabilities = (await (await service.request("/v1/capabilities")).json()) as { wallets: unknown; operations: { id: string; price_usd: unknown }[] };
    expect(capabilities.wallets).toEqual({ base: payTo.base });
    expect(capabilities.operations.find((o) => o.id === "text.reverse")?.price_usd).toEqual({ base: "0.01" });
  });
});

describe("the same table elsewhere", () => {
  it("is refused on a server taking Base and Algorand, naming the network it leaves unpriced", async () => {
    const config = loadConfig({ argv: ["--data", ":memory:", ...paid("base", "algorand"), "--plugins", baseOnly] });
    const error = await loadConfiguredRegistry(config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).problems).toEqual([
      expect.objectContaining({ file: expect.stringContaining("text-reverse.ts"), field: "price", message: expect.stringContaining("price for algorand is missing: this server takes payments on algorand (algorand:") }),
    ]);
  });

  it("loads with payments off, where one well-formed column is enough", async () => {
    const registry = await loadConfiguredRegistry(loadConfig({ argv: ["--data", ":memory:", "--plugins", baseOnly] }));
    expect(registry.plugin("text.reverse")?.priceOf({ text: "a" } as never)).toEqual({ base: 10_000 });
  });
});

describe("two networks of one family, priced apart", () => {
  it("quote each network's own price in OpenAPI's per-network offer and the MCP tool text", async () => {
    const apart = pluginFolder({ "text-reverse.ts": pluginSource("text.reverse", "POST /v1/text/reverse", `{ base: "0.01", "base-sepolia": "0.001" }`) });
    const x402 = { networks: [{ family: "evm", network: "base", payTo: payTo.base, settlement: "remote" }, { family: "evm", network: "base-sepolia", payTo: payTo.base, settlement: "remote" }], facilitator: { url: "http://127.0.0.1:9/" } };
    const both = await testService(["--payments", "on", "--x402", JSON.stringify(x402), "--plugins", apart, "--render", "off", "--extract-workers", "0"]);
    try {
      const openapi = (await (await both.request("/openapi.json")).json()) as { paths: Record<string, { post: { "x-payment-info": { networks: { network: string; price_usd: unknown }[] } } }> };
      expect(openapi.paths["/v1/text/reverse"]!.post["x-payment-info"].networks.map((n) => [n.network, n.price_usd])).toEqual([
        ["eip155:8453", "0.01"],
        ["eip155:84532", "0.001"],
      ]);
      const tools = (await (
        await both.request("/mcp", { method: "POST", headers: { accept: "application/json, text/event-stream" }, json: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} } })
      ).text()) as string;
      expect(tools).toContain("$0.01 on Base, $0.001 on Base Sepolia");
    } finally {
      await both.close();
    }
  });
});
