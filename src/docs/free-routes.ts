/**
 * @module docs/free-routes — the free GET documents, one table that both the router and the
 * OpenAPI document read, so a route is never listed twice.
 */
import type { JobsInfo } from "../jobs/setup.ts";
import type { ManagerState } from "../store/settings.ts";
import { apiVersion, type Catalogue, type PaymentInfo, serviceName } from "./catalogue.ts";
import { renderLlmsTxt, renderPilotMd, renderRecipesMd, renderSkillMd, renderWorkflowsMd } from "./markdown.ts";
import { renderOpenApi } from "./openapi.ts";

export interface DocsContext {
  readonly catalogue: Catalogue;
  readonly payments: PaymentInfo;
  readonly baseUrl: string;
  readonly manager: ManagerState;
  readonly productVersion: string;
  readonly startedAt: Date;
  /** Optional features and whether they work on this server (e.g. `render`). */
  readonly features: Readonly<Record<string, { available: boolean; detail?: string }>>;
  /** Job limits, live load and the 7-day figures (absent in documents rendered without a server). */
  readonly jobs?: JobsInfo;
}

export interface FreeRoute {
  readonly path: string;
  readonly contentType: "application/json" | "text/plain" | "text/markdown";
  readonly summary: string;
  readonly render: (docs: DocsContext) => unknown;
}

function capabilities(docs: DocsContext) {
  const { catalogue, payments, manager } = docs;
  const prices = catalogue.skills.map((s) => Number(s.price.base));
  return {
    ok: true,
    service: serviceName,
    version: docs.productVersion,
    open_for_work: manager.openForWork,
    ...(manager.openForWork ? {} : { pause_reason: manager.pauseReason }),
    price_job: prices.length ? String(Math.max(...prices)) : null,
    skills: catalogue.skills.map((s) => s.id),
    payments: {
      enabled: payments.enabled,
      protocol: "x402",
      x402_version: 2,
      scheme: "exact",
      networks: payments.networks.map((n) => ({ name: n.name, network: n.network, asset: n.asset, pay_to: n.payTo })),
    },
    wallets: Object.fromEntries(payments.networks.map((n) => [n.name, n.payTo])),
    features: docs.features,
    operations: catalogue.operations.map((e) => ({
      id: e.id,
      route: e.route,
      summary: e.summary,
      price_usd: e.price,
      price_depends_on_input: e.priceDependsOnInput,
      timeout_sec: e.timeoutSec,
    })),
    catalogue: catalogue.skills.map((s) => ({
      id: s.id,
      name: s.id,
      description: s.summary,
      endpoint: "/v1/jobs",
      method: "POST",
      price: s.price.base,
      price_usd: s.price,
      async: s.async,
      timeout_sec: s.timeoutSec,
      examples: s.examples.map((x) => ({ request: { skill: s.id, ...(x.input as object) }, ...(x.output !== undefined ? { [s.async ? "response_poll" : "response"]: x.output } : {}) })),
    })),
  };
}

function agentCard(docs: DocsContext) {
  const all = [...docs.catalogue.operations, ...docs.catalogue.skills];
  return {
    name: serviceName,
    description: "Pay-per-call web evidence and job skills for AI agents, paid with x402 v2.",
    url: docs.baseUrl,
    version: docs.productVersion,
    protocol_version: apiVersion,
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: all.map((e) => ({ id: e.id, name: e.id, description: e.summary, tags: [e.kind === "plugin" ? "web-evidence" : "job"], examples: e.examples.map((x) => JSON.stringify(x.input)) })),
    payments: { protocol: "x402", version: 2, scheme: "exact", networks: docs.payments.networks.map((n) => ({ network: n.network, asset: n.asset, pay_to: n.payTo })) },
    open_for_work: docs.manager.openForWork,
  };
}

const agentCardRoute = (path: string): FreeRoute => ({ path, contentType: "application/json", summary: "Agent card: skills, payments, limits", render: agentCard });

export const freeRoutes: readonly FreeRoute[] = [
  {
    path: "/health",
    contentType: "application/json",
    summary: "Liveness, version, and what is on",
    render: (docs) => ({
      ok: true,
      service: serviceName,
      version: docs.productVersion,
      uptime_sec: Math.round((Date.now() - docs.startedAt.getTime()) / 1000),
      open_for_work: docs.manager.openForWork,
      payments: docs.payments.enabled ? "on" : "off",
      operations: docs.catalogue.operations.length,
      skills: docs.catalogue.skills.length,
      features: docs.features,
    }),
  },
  {
    path: "/openapi.json",
    contentType: "application/json",
    summary: "OpenAPI 3.1: request schemas, error codes, x-payment-info",
    render: (docs) => renderOpenApi({ catalogue: docs.catalogue, payments: docs.payments, baseUrl: docs.baseUrl, freeRoutes }),
  },
  {
    path: "/v1/web/sample",
    contentType: "application/json",
    summary: "Free fixed example of a web/read result (no payment, no web fetch)",
    render: (docs) => {
      const read = docs.catalogue.operations.find((e) => e.id === "web.read");
      const example = read?.examples[0];
      return example?.output ?? { ok: false, error: "NOT_FOUND", status: 404, message: "web.read is not installed on this server." };
    },
  },
  { path: "/v1/capabilities", contentType: "application/json", summary: "Free cold-start probe: open_for_work, prices, skills, wallets", render: capabilities },
  { path: "/llms.txt", contentType: "text/plain", summary: "llms.txt: what is sold here, for language models", render: renderLlmsTxt },
  { path: "/skill.md", contentType: "text/markdown", summary: "Every operation and skill with fields, prices and examples", render: renderSkillMd },
  { path: "/recipes.md", contentType: "text/markdown", summary: "One copy-paste recipe per operation", render: renderRecipesMd },
  { path: "/workflows.md", contentType: "text/markdown", summary: "How calls, payments and jobs fit together", render: renderWorkflowsMd },
  { path: "/pilot.md", contentType: "text/markdown", summary: "Your first paid call, step by step", render: renderPilotMd },
  agentCardRoute("/agent-card.json"),
  agentCardRoute("/.well-known/agent-card.json"),
];
