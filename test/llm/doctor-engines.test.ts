/**
 * The doctor's "skill engines" line does not depend on prices: it is there even when the payments
 * configuration does not resolve (the payments and plugins checks say why).
 */
import { describe, expect, it } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import { checkLanguageModel } from "../../src/doctor/llm.ts";

describe("doctor: skill engines", () => {
  it("lists the skills' engines although the configured networks do not resolve", async () => {
    const x402 = { networks: [{ family: "nobody", network: "nobody:1", payTo: "X", asset: "A", settlement: "remote" }], facilitator: { url: "http://127.0.0.1:9/" } };
    const config = loadConfig({ argv: ["--data", ":memory:", "--payments", "on", "--public-url", "https://example.com", "--x402", JSON.stringify(x402)] });
    const results = await checkLanguageModel(config);
    expect(results.find((r) => r.name === "skill engines")).toMatchObject({ status: "ok", detail: expect.stringContaining("unavailable (needs a model)") });
  });
});
