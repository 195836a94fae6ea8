/**
 * @module doctor/llm — `tollbooth doctor`'s language-model lines: whether a model is configured
 * and answers (GET {base}/models), which engine each skill runs, and models without a price
 * (their USD budget can only be checked when the provider reports cost). Never prints the key.
 */
import OpenAI from "openai";
import { loadRegistry } from "../loader/registry.ts";
import type { Config } from "../config.ts";
import { engineOf } from "../plugin/catalogue.ts";
import { paymentsOffPricing } from "../plugin/price.ts";
import { redactKey, resolveLlm } from "../llm/config.ts";
import { type ModelAccess, noModel } from "../plugin/model-access.ts";

interface Result {
  readonly name: string;
  readonly status: "ok" | "warn" | "fail";
  readonly detail: string;
}

export async function checkLanguageModel(config: Config): Promise<Result[]> {
  let settings;
  try {
    settings = resolveLlm(config);
  } catch (error) {
    return [{ name: "language model", status: "fail", detail: (error as Error).message }];
  }
  const results: Result[] = [];
  let access: ModelAccess = noModel;
  if (!settings) {
    results.push({ name: "language model", status: "ok", detail: "none configured (--llm-base-url): model-only skills answer 503 SKILL_UNAVAILABLE before any 402; skills with an offline engine use it" });
  } else {
    const client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey ?? "no-key", timeout: Math.min(settings.timeoutMs, 10_000), maxRetries: 0, defaultHeaders: { ...settings.headers } });
    const where = `${settings.baseUrl} (${settings.apiKey ? "API key set" : "no API key"})`;
    try {
      const models: string[] = [];
      for await (const m of client.models.list()) {
        models.push(m.id);
        if (models.length >= 500) break;
      }
      const wanted = [...new Set([settings.defaultModel, ...Object.values(settings.models)])];
      const missing = models.length > 0 ? wanted.filter((m) => !models.includes(m)) : [];
      results.push(
        missing.length > 0
          ? { name: "language model", status: "warn", detail: `${where} answers, but does not list ${missing.join(", ")}` }
          : { name: "language model", status: "ok", detail: `${where} answers; default model ${settings.defaultModel}` },
      );
    } catch (error) {
      const status = error instanceof OpenAI.APIError && error.status !== undefined ? `HTTP ${error.status}` : "no answer";
      results.push({ name: "language model", status: "fail", detail: redactKey(`${where}: GET /models failed (${status}): ${(error as Error).message}`, settings.apiKey) });
    }
    const unpriced = [...new Set([settings.defaultModel, ...Object.values(settings.models)])].filter((m) => !settings.prices[m]);
    if (unpriced.length > 0) {
      results.push({ name: "model prices", status: "warn", detail: `no price for ${unpriced.join(", ")} under "llm.prices": the USD budget of a job is only checked when the provider reports cost (xAI does)` });
    }
    access = { ...noModel, configured: true, model: (skill) => settings.models[skill] ?? settings.defaultModel };
  }
  try {
    // Engines do not depend on prices: the skills are listed even when the payments configuration does not resolve.
    const registry = await loadRegistry(config, paymentsOffPricing);
    const lines = registry.skills.flatMap((entry) => {
      const engine = engineOf(entry, access);
      return engine ? [`${entry.id}: ${engine.available ? `${engine.engine}${engine.model ? ` (${engine.model})` : ""}` : "unavailable (needs a model)"}`] : [];
    });
    if (lines.length > 0) results.push({ name: "skill engines", status: "ok", detail: lines.join("; ") });
  } catch {
    // The plugins check reports a registry that does not load.
  }
  return results;
}
