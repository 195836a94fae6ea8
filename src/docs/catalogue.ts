/**
 * @module docs/catalogue — one read-only view of the registry that every generated document
 * (OpenAPI, capabilities, llms.txt, skill.md, agent card) is written from.
 */
import type { TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../errors.ts";
import { type ModelAccess, noModel } from "../llm/model-access.ts";
import type { SkillEngine } from "../plugin/define.ts";
import type { PluginEntry, Registry, SkillEntry } from "../plugin/registry.ts";
import { formatPrices, type PriceColumn } from "../plugin/price.ts";

export const serviceName = "Tollbooth";
/** Machine-readable description version (spec web-evidence §9). */
export const apiVersion = "1.0.1";

export interface CatalogueEntry {
  readonly kind: "plugin" | "skill";
  readonly id: string;
  /** `POST /v1/web/read`, or `POST /v1/jobs` for skills. */
  readonly route: string;
  readonly summary: string;
  readonly description: string;
  /** Base prices (the price of the first example; batches and options may cost more, see `pricing`). */
  /** Per price column; every table has the built-in families' columns (x402/price-columns.ts), which the documents quote. */
  readonly price: Readonly<Record<"base" | "algorand", string>> & Readonly<Record<PriceColumn, string>>;
  readonly priceDependsOnInput: boolean;
  readonly async: boolean;
  readonly timeoutSec: number;
  readonly jsonOnly: boolean;
  readonly errors: readonly ErrorCode[];
  readonly input: TSchema;
  readonly output: TSchema | undefined;
  readonly examples: readonly { title?: string; input: unknown; output?: unknown }[];
  readonly source: "builtin" | "external";
  /** Which engine answers on this server (skills that declare one: model, extractive, rules, none). */
  readonly engine?: SkillEngine;
}

/** The engine line of an endpoint or skill on a server with this model access (undefined: the file's own code). */
export function engineOf(entry: PluginEntry | SkillEntry, llm: ModelAccess): SkillEngine | undefined {
  return entry.definition.engine?.(llm);
}

/** "Engine on this server: model (grok-4-fast)." for descriptions a buyer reads before paying. */
export function engineSentence(engine: SkillEngine | undefined): string {
  if (!engine) return "";
  if (!engine.available) return " Unavailable on this server: no language model is configured (503 SKILL_UNAVAILABLE, never charged).";
  return ` Engine on this server: ${engine.engine}${engine.model ? ` (${engine.model})` : ""}.`;
}

function entryView(entry: PluginEntry | SkillEntry, llm: ModelAccess): CatalogueEntry {
  const d = entry.definition;
  const engine = engineOf(entry, llm);
  const first = d.examples[0];
  return {
    kind: d.kind,
    id: entry.id,
    route: d.kind === "plugin" ? d.route : "POST /v1/jobs",
    summary: d.summary,
    description: d.description ?? d.summary,
    price: formatPrices(entry.priceOf((first?.input ?? {}) as never)) as CatalogueEntry["price"],
    priceDependsOnInput: typeof d.price === "function",
    async: d.kind === "skill" ? d.async : false,
    timeoutSec: Math.ceil(d.timeoutMs / 1000),
    jsonOnly: d.kind === "skill" ? d.jsonOnly === true : false,
    errors: d.errors ?? [],
    input: d.input,
    output: d.output,
    examples: d.examples,
    source: entry.source,
    ...(engine ? { engine } : {}),
  };
}

export interface Catalogue {
  readonly operations: readonly CatalogueEntry[];
  readonly skills: readonly CatalogueEntry[];
}

/** What a paid endpoint is about, from its route: `/v1/web/...` and `/v1/pdf/...` are web evidence, `/v1/capital/commit` is capital. */
export function operationArea(entry: Pick<CatalogueEntry, "kind" | "route">): string {
  if (entry.kind === "skill") return "jobs";
  const area = entry.route.replace(/^POST /, "").split("/")[2] ?? "";
  return area === "web" || area === "pdf" || area === "" ? "web evidence" : area;
}

export function buildCatalogue(registry: Registry, llm: ModelAccess = noModel): Catalogue {
  const view = (entry: PluginEntry | SkillEntry) => entryView(entry, llm);
  return { operations: registry.plugins.map(view), skills: registry.skills.map(view) };
}

/** A schema as plain JSON Schema (TypeBox adds symbol keys that JSON drops). */
export function jsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
