/**
 * @module plugin/catalogue — one read-only view of the registry that every generated document
 * (OpenAPI, capabilities, llms.txt, skill.md, agent card) is written from.
 */
import type { TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../errors.ts";
import { type ModelAccess, noModel } from "./model-access.ts";
import type { SkillEngine } from "./define.ts";
import type { PluginEntry, Registry, SkillEntry } from "./registry.ts";
import { formatDollars, formatPrices, listPrice, type PriceColumn, type PricedNetwork, priceIn } from "./price.ts";

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
  /**
   * Prices of the first example (batches and options may cost more, see `priceDependsOnInput`) under
   * the column each priced network is published under (capabilities' `wallets` and network `name`):
   * what each configured network charges, whichever of its columns the table has. Payments off and a
   * table with none of Base's or Algorand's columns: the table's own columns.
   */
  readonly price: Readonly<Record<PriceColumn, string>>;
  /** The same per priced network (the catalogue's `pricedNetworks`, in order); undefined where the table has none of its columns (payments off only). */
  readonly networkPrices: readonly { readonly network: string; readonly label: string; readonly price: string | undefined }[];
  /** The one figure quoted where a single price is shown: the first priced network's (plugin/price.ts listPrice). */
  readonly listPrice: string;
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
  const table = entry.priceOf((first?.input ?? {}) as never);
  const declared = formatPrices(table);
  const networkPrices = entry.pricing.networks.map((n) => ({ network: n.network, column: n.column, label: n.label, price: priceIn(declared, n.columns) }));
  const published: Record<PriceColumn, string> = {};
  for (const n of networkPrices) if (n.price !== undefined && !Object.hasOwn(published, n.column)) published[n.column] = n.price;
  return {
    kind: d.kind,
    id: entry.id,
    route: d.kind === "plugin" ? d.route : "POST /v1/jobs",
    summary: d.summary,
    description: d.description ?? d.summary,
    price: Object.keys(published).length > 0 ? published : declared,
    networkPrices: networkPrices.map(({ network, label, price }) => ({ network, label, price })),
    listPrice: formatDollars(listPrice(table, entry.pricing)),
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

/** "Base 0.005, Algorand 0.01" (`sign` before each figure): every priced network the entry has a price for; the list price alone when it has none of them. */
export function networkPricesText(entry: Pick<CatalogueEntry, "networkPrices" | "listPrice">, sign = ""): string {
  const quoted = entry.networkPrices.flatMap((p) => (p.price === undefined ? [] : [`${p.label} ${sign}${p.price}`]));
  return quoted.length > 0 ? quoted.join(", ") : `${sign}${entry.listPrice}`;
}

export interface Catalogue {
  /** The networks the documents quote a price for, one column each (the registry's pricing: the configured networks; payments off: Base and Algorand). */
  readonly pricedNetworks: readonly PricedNetwork[];
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
  return { pricedNetworks: registry.pricing.networks, operations: registry.plugins.map(view), skills: registry.skills.map(view) };
}

/** A schema as plain JSON Schema (TypeBox adds symbol keys that JSON drops). */
export function jsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
