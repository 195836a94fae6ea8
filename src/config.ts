/**
 * @module config — every setting in one typed table, read once at start from flags, then
 * `TOLLBOOTH_*` environment variables, then an optional JSON config file, then defaults.
 * Each failure names the flag, variable or file key and what is wrong. No other module reads
 * `process.env`.
 */
import { type Static, type TSchema, Type as t } from "@sinclair/typebox";
import { readFileSync } from "node:fs";
import { Value } from "@sinclair/typebox/value";
import { parseTrustedProxies } from "./http/client-address.ts";
import { parseAllowedHosts } from "./http/door-guard.ts";
import { compileValidator, summarizeIssues } from "./plugin/schema.ts";
import { renderConfigFields } from "./web/render/render-config.ts";
import { searchConfigFields } from "./search/search-config.ts";
import { fetchIdentityConfigFields, fetchIdentityProblem } from "./fetch-identity/fetch-identity-config.ts";
import { crawlConfigFields } from "./web/crawl-config.ts";
import { X402Config } from "./x402/config.ts";
import { LlmConfig, resolveLlm } from "./llm/config.ts";

/** The table. Keys are camelCase; the flag is their kebab-case, the variable TOLLBOOTH_ + UPPER_SNAKE. */
export const configFields = {
  port: t.Integer({ minimum: 0, maximum: 65535, default: 8402, description: "TCP port to listen on (0 picks a free one)." }),
  host: t.Optional(t.String({ minLength: 1, description: "Address to bind. Default 0.0.0.0 with payments on, 127.0.0.1 with payments off." })),
  data: t.String({ minLength: 1, default: "./data", description: "Folder for the SQLite database (tollbooth.db)." }),
  plugins: t.Optional(t.String({ minLength: 1, description: "Folder of extra plugin and skill files loaded at start." })),
  databaseUrl: t.Optional(
    t.String({
      pattern: "^postgres(ql)?://",
      description: "PostgreSQL database (postgres://user@host:port/db) for several instances to share, instead of the SQLite file in --data. serve refuses it, naming them, while some table families have no PostgreSQL engine yet (issue 28, see docs/scale-out.md).",
    }),
  ),
  payments: t.Union([t.Literal("on"), t.Literal("off")], { default: "off", description: "on: paid routes require x402 payment; off: everything is free (local use only)." }),
  unsafeAllowLoopbackTargets: t.Boolean({
    default: false,
    description: "TEST ONLY: lets the fetcher reach 127.0.0.0/8 on any port. Never enable on a public server.",
  }),
  localTry: t.Boolean({
    default: false,
    description:
      "Try Tollbooth on this machine: reads may reach pages served on 127.0.0.0/8 (any port), as --unsafe-allow-loopback-targets allows; binds 127.0.0.1 and is refused with any other --host; announced in the start banner, /health and /v1/capabilities.",
  }),
  payToBase: t.Optional(t.String({ pattern: "^0x[0-9a-fA-F]{40}$", description: "Base (eip155:8453) USDC address that receives payments." })),
  payToAlgorand: t.Optional(t.String({ pattern: "^[A-Z2-7]{58}$", description: "Algorand address (opted in to USDC) that receives payments." })),
  facilitatorUrl: t.Optional(t.String({ pattern: "^https?://", description: "x402 facilitator (verify/settle) used with --pay-to-base / --pay-to-algorand." })),
  x402: t.Optional(
    t.Unsafe<Static<typeof X402Config>>({
      ...X402Config,
      description: "Full payment configuration (networks, local settlement keys, facilitators) as JSON; see docs/payments.md.",
    }),
  ),
  publicUrl: t.Optional(t.String({ format: "uri", description: "Base URL callers reach this server at (used in 402 resource URLs and docs)." })),
  allowedHosts: t.Optional(
    t.String({
      minLength: 1,
      description:
        "HOST[,HOST]: more host names (or addresses) the agent doors /mcp and /a2a answer, beside the --public-url host, the bind address and, bound to loopback, localhost. Any other Host or Origin gets 403 (DNS rebinding).",
    }),
  ),
  contactUrl: t.String({ format: "uri", default: "https://github.com/tollbooth", description: "Contact URL named in the fetcher's User-Agent." }),
  logLevel: t.Union([t.Literal("debug"), t.Literal("info"), t.Literal("warn"), t.Literal("error")], { default: "info", description: "Log level." }),
  logFile: t.Optional(t.String({ minLength: 1, description: "Write log lines to this file instead of stdout/stderr, rotated at --log-file-max-mb." })),
  logFileMaxMb: t.Integer({ minimum: 1, maximum: 100_000, default: 100, description: "Size in MB at which the log file is rotated (to FILE.1, FILE.2, ...)." }),
  logFileKeep: t.Integer({ minimum: 0, maximum: 100, default: 3, description: "Rotated log files kept beside the current one; older ones are deleted." }),
  logRequests: t.Union([t.Literal("all"), t.Literal("calls"), t.Literal("errors-and-paid")], {
    default: "calls",
    description:
      "all: one line per request; calls: one line per request but free documents answered below 400, which are counted in one line a minute; errors-and-paid: only answers >= 400 (not 402 price previews) and calls that carried a payment.",
  }),
  extractWorkers: t.Optional(
    t.Integer({ minimum: 0, maximum: 64, description: "Threads that extract HTML pages for web reads (0: on the server's own thread). Default: one per CPU core." }),
  ),
  memorySoftLimitMb: t.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 200,
    description:
      "Resident memory (MiB) above which the server runs a full garbage collection on its own thread (checked every 250 ms, at most twice a second; after one that gives little back, half as often each time until the memory grows again); 0: off.",
  }),
  ...renderConfigFields,
  ...searchConfigFields,
  ...fetchIdentityConfigFields,
  ...crawlConfigFields,
  config: t.Optional(t.String({ minLength: 1, description: "Path of a JSON config file whose keys are these settings' names." })),
  // ── jobs (spec job-worker §8) ──────────────────────────────────────────────
  maxConcurrentJobs: t.Integer({ minimum: 1, maximum: 64, default: 3, description: "Async jobs run at the same time (spec max_concurrent_jobs)." }),
  maxQueuedJobs: t.Integer({ minimum: 1, maximum: 10_000, default: 100, description: "Async jobs waiting to start; beyond it submissions get 503 QUEUE_FULL." }),
  rateLimitPerMin: t.Integer({ minimum: 1, maximum: 1_000_000_000, default: 30, description: "Paid calls per minute per caller (payer when paid, client address otherwise)." }),
  jobResultTtlHours: t.Integer({ minimum: 1, maximum: 720, default: 24, description: "Hours a finished job and its result stay readable at GET /v1/jobs/:id." }),
  idempotencyTtlHours: t.Integer({ minimum: 1, maximum: 720, default: 24, description: "Hours an Idempotency-Key and its response are kept." }),
  maxPromptChars: t.Integer({ minimum: 1, maximum: 1_000_000, default: 4000, description: "Longest `prompt` a skill accepts (spec max_prompt_chars)." }),
  jobTimeoutSec: t.Integer({ minimum: 1, maximum: 600, default: 180, description: "Upper bound on any skill's timeout (spec job_timeout_sec)." }),
  jobLeaseSec: t.Integer({
    minimum: 2,
    maximum: 600,
    default: 30,
    description: "With a shared database: how long a running job stays claimed by its instance without a renewal (renewed every third of it); a job whose instance died is run again by another after it lapses.",
  }),
  // ── requests (issue 15) ───────────────────────────────────────────────────
  requestTimeoutMs: t.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 30_000,
    description: "Deadline for a request's body once its headers are in; a slower client gets 408 REQUEST_TIMEOUT and the connection is closed.",
  }),
  // ── language model (llm skills) ────────────────────────────────────────────
  llmBaseUrl: t.Optional(t.String({ pattern: "^https?://", description: "OpenAI-compatible Chat Completions base URL (xAI https://api.x.ai/v1, OpenAI, a local llama.cpp server). Unset: no model; model skills answer 503 SKILL_UNAVAILABLE." })),
  llmApiKey: t.Optional(t.String({ minLength: 1, description: "API key of the model provider (never logged). Prefer --llm-api-key-file." })),
  llmApiKeyFile: t.Optional(t.String({ minLength: 1, description: "File holding the model provider's API key." })),
  llmModel: t.Optional(t.String({ minLength: 1, description: "Default model id; per-skill models, prices and budgets go under the config file's \"llm\" key." })),
  llmTimeoutSec: t.Integer({ minimum: 1, maximum: 600, default: 60, description: "Longest wait for a model's first byte, and for each next streamed chunk." }),
  llmMaxRetries: t.Integer({ minimum: 0, maximum: 10, default: 2, description: "Retries of a model call on 408/409/429/5xx or a lost connection (Retry-After honoured)." }),
  llm: t.Optional(
    t.Unsafe<Static<typeof LlmConfig>>({
      ...LlmConfig,
      description: "Per-skill models and budgets and per-model prices as JSON; see docs/language-models.md.",
    }),
  ),
  slaCapMs: t.Integer({ minimum: 1, maximum: 3_600_000, default: 185_000, description: "Job durations above this are left out of the published statistics and counted as outliers." }),
  // ── directory ─────────────────────────────────────────────────────────────
  directoryChecksPerMin: t.Integer({ minimum: 0, maximum: 60, default: 3, description: "Directory listings re-checked per minute (card and free capabilities, robots honoured); 0 stops the checker." }),
  // ── operations (backups, reverse proxy, admin listener) ─────────────────────
  trustProxy: t.Optional(
    t.String({ minLength: 1, description: "CIDR[,CIDR]: reverse proxies whose Forwarded / X-Forwarded-For name the client. Without it those headers are ignored." }),
  ),
  adminPort: t.Optional(t.Integer({ minimum: 0, maximum: 65535, description: "Port of the operator's listener (/metrics, dashboard, pause/resume); off unless given (0 picks a free one)." })),
  adminHost: t.String({ minLength: 1, default: "127.0.0.1", description: "Address the admin listener binds; anything but loopback needs --admin-token." }),
  adminToken: t.Optional(t.String({ minLength: 16, description: "Bearer token the admin listener requires (at least 16 characters); required for a non-loopback --admin-host." })),
  backupDir: t.Optional(t.String({ minLength: 1, description: "Folder `tollbooth backup` writes to when no FILE is given (doctor checks it)." })),
} satisfies Record<string, TSchema>;

export const ConfigSchema = t.Object(configFields, { additionalProperties: false });
type RawConfig = Static<typeof ConfigSchema>;

/** The resolved configuration every module receives slices of. */
export type Config = Omit<RawConfig, "host"> & { host: string };

export type ConfigKey = keyof typeof configFields;

export function flagName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export function envName(key: string): string {
  return `TOLLBOOTH_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`configuration is not valid:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export interface ConfigSources {
  /** Flags after the subcommand, e.g. ["--port", "9000", "--payments=off"]. */
  argv?: readonly string[];
  env?: Record<string, string | undefined>;
}

interface Value {
  raw: unknown;
  origin: string;
}

/** Reads flags, environment and config file into one validated Config, or throws ConfigError naming every problem. */
export function loadConfig({ argv = [], env = {} }: ConfigSources): Config {
  const problems: string[] = [];
  const fromFlags = parseFlags(argv, problems);
  const values = new Map<string, Value>();
  const keys = Object.keys(configFields) as ConfigKey[];

  for (const key of keys) {
    const variable = env[envName(key)];
    if (fromFlags.has(key)) values.set(key, fromFlags.get(key)!);
    else if (variable !== undefined && variable !== "") values.set(key, { raw: variable, origin: envName(key) });
  }

  const file = values.get("config");
  if (file) {
    for (const [key, value] of readConfigFile(String(file.raw), problems)) {
      if (!values.has(key)) values.set(key, value);
    }
  }

  const result: Record<string, unknown> = {};
  for (const key of keys) {
    const schema = configFields[key] as TSchema;
    const value = values.get(key);
    if (!value) {
      if (schema.default !== undefined) result[key] = schema.default;
      continue;
    }
    let coerced = coerce(value.raw, schema);
    if (schema.type === "object" && typeof coerced === "object" && coerced !== null) coerced = Value.Default(schema, Value.Clone(coerced));
    const check = compileValidator<unknown>(schema)(coerced);
    if (check.ok) result[key] = coerced;
    else if (schema.type === "object" && typeof coerced === "object") problems.push(`${value.origin}: ${summarizeIssues(check.issues)}`);
    else problems.push(`${value.origin}: ${describe(schema)}, got ${JSON.stringify(value.raw)}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const raw = result as RawConfig;
  if (raw.payments === "on" && !raw.x402 && !raw.payToBase && !raw.payToAlgorand) {
    throw new ConfigError([
      `${values.get("payments")?.origin ?? "--payments"}: payments on needs where to be paid: --pay-to-base and/or --pay-to-algorand with --facilitator-url, or "x402" in the config file`,
    ]);
  }
  if (raw.payments === "on" && !raw.x402 && !raw.facilitatorUrl) {
    throw new ConfigError(["--facilitator-url: required with --pay-to-base / --pay-to-algorand (or give local settlement keys in the config file's \"x402\")"]);
  }
  const identityProblem = fetchIdentityProblem(raw);
  if (identityProblem) throw new ConfigError([identityProblem]);
  try {
    resolveLlm(raw);
  } catch (error) {
    throw new ConfigError([(error as Error).message]);
  }
  if (raw.adminPort !== undefined && !raw.adminToken && !isLoopbackHost(raw.adminHost)) {
    throw new ConfigError([`${values.get("adminHost")?.origin ?? "--admin-host"}: binding the admin listener to ${raw.adminHost} needs --admin-token (TOLLBOOTH_ADMIN_TOKEN)`]);
  }
  if (raw.adminPort !== undefined && raw.adminPort !== 0 && raw.adminPort === raw.port && raw.port !== 0) {
    throw new ConfigError([`${values.get("adminPort")?.origin}: the admin listener needs its own port, not --port ${raw.port}`]);
  }
  if (raw.trustProxy !== undefined) {
    const parsed = parseTrustedProxies(raw.trustProxy);
    if ("problems" in parsed) throw new ConfigError(parsed.problems.map((p) => `${values.get("trustProxy")?.origin ?? "--trust-proxy"}: ${p}`));
  }
  if (raw.allowedHosts !== undefined) {
    const parsed = parseAllowedHosts(raw.allowedHosts);
    if ("problems" in parsed) throw new ConfigError(parsed.problems.map((p) => `${values.get("allowedHosts")?.origin ?? "--allowed-hosts"}: ${p}`));
  }
  const host = raw.host ?? (raw.payments === "on" && !raw.localTry ? "0.0.0.0" : "127.0.0.1");
  if (raw.localTry && !isLoopbackHost(host)) {
    throw new ConfigError([
      `${values.get("localTry")?.origin ?? "--local-try"}: local-try mode lets reads reach the services of this machine, so it serves on loopback only, not on ${host} (${values.get("host")?.origin ?? "--host"}); drop --local-try on a server others can reach`,
    ]);
  }
  // Local-try mode is the loopback switch plus its guards (loopback bind, announced everywhere).
  return { ...raw, host, unsafeAllowLoopbackTargets: raw.unsafeAllowLoopbackTargets || raw.localTry };
}

/**
 * What stops `serve` (but not the other commands, so `doctor` can still say it): with payments on,
 * public URLs (402 resources, Location, discovery documents) must come from --public-url, never
 * from a caller's Host header, which anyone can set and a shared cache would then keep.
 */
export function servingProblems(config: Pick<Config, "payments" | "publicUrl">): string[] {
  if (config.payments === "on" && !config.publicUrl) {
    return ["--public-url: required with payments on (the base URL buyers reach this server at; without it 402 resources and documents would name whatever Host a caller sends)"];
  }
  return [];
}

/**
 * What the store cannot do yet with this configuration (serve refuses to start): `notOnPostgres`
 * names the table families with no PostgreSQL engine yet (database.ts familiesNotOnPostgres).
 */
export function storeProblems(config: Pick<Config, "databaseUrl">, notOnPostgres: readonly string[] = []): string[] {
  if (config.databaseUrl === undefined || notOnPostgres.length === 0) return [];
  return [
    `--database-url: serving from PostgreSQL is not finished: these table families have no PostgreSQL engine yet: ${notOnPostgres.join(", ")} (issue 28); leave it unset to serve from the SQLite file in --data`,
  ];
}

/** What local-try mode allows, as the banner, /health and /v1/capabilities say it. */
export const localTryNotice = "reads may reach 127.0.0.0/8 on any port (the services of this machine); served on loopback only, for trying Tollbooth on one machine.";

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function parseFlags(argv: readonly string[], problems: string[]): Map<string, Value> {
  const byFlag = new Map(Object.keys(configFields).map((k) => [flagName(k), k]));
  const out = new Map<string, Value>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      problems.push(`unexpected argument ${JSON.stringify(arg)}`);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const key = byFlag.get(name);
    if (!key) {
      problems.push(`--${name}: unknown flag (known: ${[...byFlag.keys()].map((f) => `--${f}`).join(", ")})`);
      continue;
    }
    const schema = configFields[key as ConfigKey] as TSchema;
    let raw: string | undefined = inline;
    if (raw === undefined) {
      const next = argv[i + 1];
      if (schema.type === "boolean" && (next === undefined || next.startsWith("--"))) raw = "true";
      else if (next === undefined || next.startsWith("--")) {
        problems.push(`--${name}: needs a value (${describe(schema)})`);
        continue;
      } else {
        raw = next;
        i++;
      }
    }
    out.set(key, { raw, origin: `--${name}` });
  }
  return out;
}

function readConfigFile(path: string, problems: string[]): Map<string, Value> {
  const out = new Map<string, Value>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    problems.push(`config file ${path}: ${(error as Error).message}`);
    return out;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    problems.push(`config file ${path}: must hold a JSON object`);
    return out;
  }
  for (const [key, raw] of Object.entries(parsed)) {
    if (!(key in configFields) || key === "config") {
      problems.push(`config file ${path}: unknown key "${key}"`);
      continue;
    }
    out.set(key, { raw, origin: `config file ${path}, key "${key}"` });
  }
  return out;
}

/** Strings from flags and variables become the schema's type; anything else is left for the validator to refuse. */
function coerce(raw: unknown, schema: TSchema): unknown {
  if (typeof raw !== "string") return raw;
  if (schema.type === "object") {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  if (schema.type === "integer" || schema.type === "number") return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
  if (schema.type === "boolean") {
    const v = raw.trim().toLowerCase();
    if (["true", "1", "on", "yes"].includes(v)) return true;
    if (["false", "0", "off", "no"].includes(v)) return false;
  }
  return raw;
}

function describe(schema: TSchema): string {
  if (schema.anyOf) return `must be one of ${(schema.anyOf as TSchema[]).map((s) => JSON.stringify(s.const)).join(", ")}`;
  if (schema.type === "integer") return `must be a whole number from ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === "boolean") return "must be true or false";
  if (schema.format === "uri" || schema.pattern === "^https?://") return "must be an absolute http(s) URL";
  if (schema.pattern) return `must match ${schema.pattern}`;
  if (schema.type === "object") return "must be a JSON object of the documented shape";
  return "must be a non-empty string";
}

/** Rows for `tollbooth doctor` and the configuration table of docs/operator.md. */
export function describeConfigFields(): { flag: string; env: string; default: unknown; description: string }[] {
  return Object.entries(configFields).map(([key, schema]) => ({
    flag: `--${flagName(key)}`,
    env: envName(key),
    default: (schema as TSchema).default,
    description: String((schema as TSchema).description ?? ""),
  }));
}
