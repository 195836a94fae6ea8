/**
 * @module llm/config — the language-model settings: the flat flags (`--llm-base-url`,
 * `--llm-api-key`, `--llm-api-key-file`, `--llm-model`, `--llm-timeout-sec`, `--llm-max-retries`)
 * and the config file's `llm` key (per-skill models and budgets, per-model prices). The API key is
 * read once here and never appears in a message or a log line.
 */
import { readFileSync } from "node:fs";
import { type Static, Type as t } from "@sinclair/typebox";

const Budget = t.Object(
  {
    maxSteps: t.Optional(t.Integer({ minimum: 1, maximum: 64, description: "Model calls per job, the final answer included." })),
    maxToolCalls: t.Optional(t.Integer({ minimum: 0, maximum: 256, description: "Tool calls per job (repeats refused to the model count too)." })),
    maxUsd: t.Optional(t.Number({ minimum: 0, description: "Model spend per job in USD." })),
    maxInputTokens: t.Optional(t.Integer({ minimum: 1, description: "Input tokens per job." })),
    maxOutputTokens: t.Optional(t.Integer({ minimum: 1, description: "Output tokens per job (reasoning included)." })),
    maxWallMs: t.Optional(t.Integer({ minimum: 100, description: "Milliseconds of model work per job (the job's timeout still aborts everything)." })),
  },
  { additionalProperties: false },
);
export type LlmBudget = Static<typeof Budget>;

const Price = t.Object(
  {
    input: t.Number({ minimum: 0, description: "USD per million input tokens." }),
    output: t.Number({ minimum: 0, description: "USD per million output tokens (reasoning tokens bill as output)." }),
  },
  { additionalProperties: false },
);
export type ModelPrice = Static<typeof Price>;

/** The config file's `llm` key (or TOLLBOOTH_LLM as JSON). */
export const LlmConfig = t.Object(
  {
    models: t.Optional(t.Record(t.String(), t.String({ minLength: 1 }), { description: "Model per skill id, e.g. {\"web.brief\": \"grok-4-fast\"}; others use --llm-model." })),
    prices: t.Optional(t.Record(t.String(), Price, { description: "Price per model id; without one (and without a provider-reported cost) a job's USD budget cannot be checked." })),
    budgets: t.Optional(t.Record(t.String(), Budget, { description: "Per-skill limits that replace the skill's defaults." })),
    headers: t.Optional(t.Record(t.String(), t.String(), { description: "Extra HTTP headers on every model request." })),
  },
  { additionalProperties: false },
);
export type LlmConfig = Static<typeof LlmConfig>;

/** The flat settings the config table holds for the model. */
export interface LlmSettings {
  readonly llmBaseUrl?: string | undefined;
  readonly llmApiKey?: string | undefined;
  readonly llmApiKeyFile?: string | undefined;
  readonly llmModel?: string | undefined;
  readonly llmTimeoutSec: number;
  readonly llmMaxRetries: number;
  readonly llm?: LlmConfig | undefined;
}

export interface ResolvedLlm {
  readonly baseUrl: string;
  /** Never logged or put in a message. */
  readonly apiKey: string | undefined;
  readonly defaultModel: string;
  readonly models: Readonly<Record<string, string>>;
  readonly prices: Readonly<Record<string, ModelPrice>>;
  readonly budgets: Readonly<Record<string, LlmBudget>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxRetries: number;
}

/** undefined without a base URL (no model); throws naming the setting (never the key) when one is unusable. */
export function resolveLlm(settings: LlmSettings): ResolvedLlm | undefined {
  if (!settings.llmBaseUrl) return undefined;
  if (settings.llmApiKey && settings.llmApiKeyFile) throw new Error("--llm-api-key and --llm-api-key-file: give one, not both");
  let apiKey = settings.llmApiKey || undefined;
  if (settings.llmApiKeyFile) {
    try {
      apiKey = readFileSync(settings.llmApiKeyFile, "utf8").trim();
    } catch (error) {
      throw new Error(`--llm-api-key-file: cannot read ${settings.llmApiKeyFile} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
    if (!apiKey) throw new Error(`--llm-api-key-file: ${settings.llmApiKeyFile} is empty`);
  }
  const file = settings.llm ?? {};
  const defaultModel = settings.llmModel ?? Object.values(file.models ?? {})[0];
  if (!defaultModel) throw new Error("--llm-model: required with --llm-base-url (the model skills use unless the config file's llm.models names one)");
  return {
    baseUrl: settings.llmBaseUrl.replace(/\/+$/, ""),
    apiKey,
    defaultModel,
    models: file.models ?? {},
    prices: file.prices ?? {},
    budgets: file.budgets ?? {},
    headers: file.headers ?? {},
    timeoutMs: settings.llmTimeoutSec * 1000,
    maxRetries: settings.llmMaxRetries,
  };
}

/** A message with every occurrence of the key replaced, for errors that echo a request. */
export function redactKey(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text;
}
