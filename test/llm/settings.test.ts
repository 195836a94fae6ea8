/** The llm settings: flags, key file, the config file's `llm` key, and what is refused at start (never echoing the key). */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { resolveLlm } from "../../src/llm/config.ts";
import { foldToolCalls, usageOf } from "../../src/llm/provider.ts";

const problems = (argv: string[]) => {
  try {
    loadConfig({ argv });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join("\n");
    throw error;
  }
  return "";
};

describe("llm settings", () => {
  it("means no model without a base URL", () => {
    expect(resolveLlm(loadConfig({}))).toBeUndefined();
  });

  it("reads the key from a file, models, prices and budgets from the llm key of the config file", () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-llm-"));
    writeFileSync(join(dir, "key"), "sk-from-file\n");
    const file = join(dir, "tollbooth.json");
    writeFileSync(file, JSON.stringify({ llm: { models: { "web.brief": "small" }, prices: { big: { input: 3, output: 15 } }, budgets: { "grok.prompt": { maxSteps: 4 } } } }));
    const config = loadConfig({ argv: ["--config", file, "--llm-base-url", "https://api.x.ai/v1/", "--llm-api-key-file", join(dir, "key"), "--llm-model", "big"] });
    const llm = resolveLlm(config)!;
    expect(llm).toMatchObject({ baseUrl: "https://api.x.ai/v1", apiKey: "sk-from-file", defaultModel: "big", models: { "web.brief": "small" }, budgets: { "grok.prompt": { maxSteps: 4 } }, timeoutMs: 60_000, maxRetries: 2 });
    expect(llm.prices.big).toEqual({ input: 3, output: 15 });
  });

  it("refuses a base URL without a model, both key forms, and an unreadable key file, never echoing a key", () => {
    expect(problems(["--llm-base-url", "http://127.0.0.1:8080/v1"])).toContain("--llm-model");
    const both = problems(["--llm-base-url", "http://127.0.0.1:8080/v1", "--llm-model", "m", "--llm-api-key", "sk-secret-inline", "--llm-api-key-file", "/nonexistent"]);
    expect(both).toContain("give one, not both");
    expect(both).not.toContain("sk-secret-inline");
    expect(problems(["--llm-base-url", "http://127.0.0.1:8080/v1", "--llm-model", "m", "--llm-api-key-file", "/nonexistent/key"])).toContain("--llm-api-key-file: cannot read");
    expect(problems(["--llm", '{"prices": {"m": {"input": -1, "output": 1}}}'])).toContain("--llm:");
  });
});

describe("usage and cost", () => {
  it("bills reasoning as output whether the provider counts it inside completion tokens (OpenAI) or beside them (xAI)", () => {
    const price = { input: 1, output: 10 };
    expect(usageOf({ prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, completion_tokens_details: { reasoning_tokens: 30 } }, price)).toEqual({ inputTokens: 100, outputTokens: 50, costUsd: (100 + 500) / 1e6, costSource: "price" });
    expect(usageOf({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 150, completion_tokens_details: { reasoning_tokens: 30 } }, price)).toMatchObject({ outputTokens: 50 });
    expect(usageOf({ prompt_tokens: 100, completion_tokens: 20, cost_in_usd_ticks: 5e7 }, price)).toMatchObject({ costUsd: 0.005, costSource: "provider" });
    expect(usageOf({ prompt_tokens: 100, completion_tokens: 20 }, undefined)).toMatchObject({ costUsd: 0, costSource: "unpriced" });
  });
});

describe("tool-call deltas", () => {
  it("joins OpenAI's incremental arguments by index and splits whole calls that share index 0", () => {
    const calls: { id: string; name: string; arguments: string }[] = [];
    const byIndex = new Map();
    foldToolCalls(calls, byIndex, [{ index: 0, id: "a", type: "function", function: { name: "web_read", arguments: "" } }, { index: 1, id: "b", type: "function", function: { name: "pdf_read", arguments: '{"u' } }]);
    foldToolCalls(calls, byIndex, [{ index: 0, function: { arguments: '{"url":"x"}' } }, { index: 1, function: { arguments: 'rl":"y"}' } }]);
    expect(calls).toEqual([
      { id: "a", name: "web_read", arguments: '{"url":"x"}' },
      { id: "b", name: "pdf_read", arguments: '{"url":"y"}' },
    ]);
    const whole: typeof calls = [];
    const map = new Map();
    foldToolCalls(whole, map, [{ index: 0, id: "c1", type: "function", function: { name: "web_read", arguments: '{"url":"1"}' } }]);
    foldToolCalls(whole, map, [{ index: 0, id: "c2", type: "function", function: { name: "web_read", arguments: '{"url":"2"}' } }]);
    expect(whole.map((c) => c.arguments)).toEqual(['{"url":"1"}', '{"url":"2"}']);
  });
});
