/**
 * @module mcp/tools — the MCP tool list, compiled once at start from the registry: one tool per
 * paid operation and job skill (named for strict clients: `web.read` → `web_read`), plus the free
 * `job_status` and `payment_status` (and, with web.crawl, `crawl_status` and `crawl_cancel`). Paid tools declare no `outputSchema`: SDK 1.x clients check a
 * tool error's structured content against it and would throw on the PaymentRequired offer.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Catalogue, type CatalogueEntry, jsonSchema } from "../plugin/catalogue.ts";
import type { PluginEntry, Registry, SkillEntry } from "../plugin/registry.ts";

export const MCP_PATH = "/mcp";
const NAME_LIMIT = 64;

export type ToolBinding =
  | { readonly kind: "plugin"; readonly tool: Tool; readonly entry: PluginEntry }
  | { readonly kind: "skill"; readonly tool: Tool; readonly entry: SkillEntry }
  | { readonly kind: "job_status" | "payment_status" | "crawl_status" | "crawl_cancel"; readonly tool: Tool };

export interface ToolList {
  readonly tools: readonly Tool[];
  readonly byName: ReadonlyMap<string, ToolBinding>;
}

/** A registry id as a tool name strict clients accept (`^[a-zA-Z0-9_-]{1,64}$`). */
export function toolNameOf(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, NAME_LIMIT) || "tool";
}

function priceSentence(entry: CatalogueEntry, paid: boolean): string {
  if (!paid) return " Free on this server (payments are off).";
  // What each configured network charges (two networks of one family may be priced apart).
  const prices = entry.networkPrices.flatMap((p) => (p.price === undefined ? [] : [`$${p.price} on ${p.label}`])).join(", ");
  return ` Price ${entry.priceDependsOnInput ? "from " : ""}${prices} (USDC via x402, exact for the arguments): an unpaid call answers with the offer (PaymentRequired); pay in _meta["x402/payment"].`;
}

const freeTools: readonly ToolBinding[] = [
  {
    kind: "job_status",
    tool: {
      name: "job_status",
      description: "Free. The state of an async job started by a skill tool (queued, running, completed with its result, failed, expired), as GET /v1/jobs/{id} shows it.",
      inputSchema: { type: "object", properties: { job_id: { type: "string", pattern: "^job_[0-9a-f]{32}$" } }, required: ["job_id"], additionalProperties: false },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  },
  {
    kind: "payment_status",
    tool: {
      name: "payment_status",
      description: "Free. Whether a payment (by transaction id, nonce or payment id) was settled, is pending, failed or was never used: ask before paying again after a lost answer.",
      inputSchema: { type: "object", properties: { id: { type: "string", minLength: 1, maxLength: 200 } }, required: ["id"], additionalProperties: false },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  },
];

const crawlArguments = {
  crawl_id: { type: "string", pattern: "^crawl_[0-9a-f]{32}$" },
  proof: {
    type: "string",
    maxLength: 8192,
    description:
      "The payer's proof, as the SIGN-IN-WITH-X header carries it over HTTP: a Sign-In-With-X (x402 SIWX, CAIP-122) payload signed by the paying wallet for the crawl's status_url, base64 JSON, a fresh nonce each call. Omit it to get the challenge (the fields to sign). Not needed for a crawl of a server with payments off.",
  },
} as const;

/** The free tools that read and cancel a crawl, for its payer (crawl/crawl-service.ts checks the proof). */
const crawlTools: readonly ToolBinding[] = [
  {
    kind: "crawl_status",
    tool: {
      name: "crawl_status",
      description: "Free, for the payer of the crawl. Its status, counts and a page of its results (cursor, limit 1-200), as GET /v1/web/crawl/{id} shows them.",
      inputSchema: {
        type: "object",
        properties: { ...crawlArguments, cursor: { type: "string", pattern: "^[0-9]{1,15}$" }, limit: { type: "integer", minimum: 1, maximum: 200 } },
        required: ["crawl_id"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  },
  {
    kind: "crawl_cancel",
    tool: {
      name: "crawl_cancel",
      description: "Free, for the payer of the crawl. Cancels it, as DELETE /v1/web/crawl/{id} does: nothing more is fetched; the pages not read are refunded as its status says.",
      inputSchema: { type: "object", properties: crawlArguments, required: ["crawl_id"], additionalProperties: false },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
  },
];

export function compileTools(registry: Registry, catalogue: Catalogue, paid: boolean): ToolList {
  const byName = new Map<string, ToolBinding>();
  const claim = (base: string) => {
    let name = base;
    for (let i = 2; byName.has(name); i++) name = `${base.slice(0, NAME_LIMIT - String(i).length - 1)}_${i}`;
    return name;
  };
  const describe = (entry: PluginEntry | SkillEntry, view: CatalogueEntry | undefined, isAsync: boolean): Tool => ({
    name: "",
    description:
      entry.definition.summary +
      (view ? priceSentence(view, paid) : "") +
      (isAsync ? " Runs as a job: answers with its job_id; poll it with the job_status tool." : ""),
    inputSchema: { ...jsonSchema(entry.definition.input), type: "object" } as Tool["inputSchema"],
  });
  for (const binding of freeTools) byName.set(binding.tool.name, binding);
  if (registry.plugins.some((entry) => entry.id === "web.crawl")) for (const binding of crawlTools) byName.set(binding.tool.name, binding);
  for (const entry of registry.plugins) {
    const tool = describe(entry, catalogue.operations.find((o) => o.id === entry.id), false);
    const name = claim(toolNameOf(entry.id));
    byName.set(name, { kind: "plugin", entry, tool: { ...tool, name, title: entry.id } });
  }
  const pluginIds = new Set(registry.plugins.map((entry) => entry.id));
  for (const entry of registry.skills) {
    const tool = describe(entry, catalogue.skills.find((s) => s.id === entry.id), entry.definition.async === true);
    // A skill sold under an endpoint's id too (web.extract) is named as the agent card names it: jobs.<id>.
    const name = claim(toolNameOf(pluginIds.has(entry.id) ? `jobs.${entry.id}` : entry.id));
    byName.set(name, { kind: "skill", entry, tool: { ...tool, name, title: entry.id } });
  }
  return { tools: [...byName.values()].map((b) => b.tool), byName };
}
