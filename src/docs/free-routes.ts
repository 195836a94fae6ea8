/**
 * @module docs/free-routes — the free GET documents, one table that both the router and the
 * OpenAPI document read, so a route is never listed twice.
 */
import { A2A_PATH, a2aInterfaces, X402_EXTENSION_URI } from "../a2a/skills.ts";
import { evidenceVerifyPath, jwksPath } from "../evidence/statement.ts";
import { didDocumentPath } from "../x402/offer-receipt.ts";
import { jobStatuses, jobTransitions } from "../jobs/job-status.ts";
import type { JobFigureNeeds } from "../jobs/setup.ts";
import { apiVersion, operationArea, serviceName } from "../plugin/catalogue.ts";
import type { ModuleDocument } from "../module/define.ts";
import type { DocsContext } from "./docs-context.ts";
import { renderLlmsTxt, renderPilotMd, renderRecipesMd, renderSkillMd, renderWorkflowsMd } from "./markdown.ts";
import { renderOpenApi } from "./openapi.ts";
import { renderCircle, renderPlaybook } from "./playbook.ts";

/** A free document of the core, or a module's (module/define.ts ModuleDocument: path, type, summary, caching, query). */
export interface FreeRoute extends Omit<ModuleDocument, "render"> {
  readonly render: (docs: DocsContext) => unknown | Promise<unknown>;
  /**
   * Everything the document reads that can change while the server runs, as one key: while it is
   * unchanged the last rendered text is served again. Absent: rendered on every request.
   */
  readonly reusedWhile?: (docs: DocsContext) => string;
  /**
   * The rendered text is served again for this many milliseconds, without reading anything: what it
   * shows may be that old (a cheap document asked for very often, like /health).
   */
  readonly heldForMs?: number;
  /** What the document reads of the modules' live figures, by module (each loads its own before the rendering: ModuleRuntime.liveDocs). */
  readonly reads?: { readonly jobs?: JobFigureNeeds; readonly [module: string]: unknown };
}

/** Documents built from the registry, prices and networks alone (fixed while serving) and the base URL. */
const byBaseUrl = (docs: DocsContext) => docs.baseUrl;
/** The features as text, once per features object (the server hands out the same one for a second). */
const featureKeys = new WeakMap<DocsContext["features"], string>();
function featuresKey(features: DocsContext["features"]): string {
  let key = featureKeys.get(features);
  if (key === undefined) featureKeys.set(features, (key = JSON.stringify(features)));
  return key;
}
/** The capabilities' live inputs: the manager's state, active jobs and the optional features. */
const capabilitiesInputs = (docs: DocsContext) =>
  `${docs.manager.openForWork ? "open" : JSON.stringify(docs.manager.pauseReason)} ${docs.jobs?.activeJobs() ?? 0} ${featuresKey(docs.features)}`;


function capabilities(docs: DocsContext) {
  const { catalogue, payments, manager } = docs;
  const prices = catalogue.skills.map((s) => Number(s.listPrice));
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
    active_jobs: docs.jobs?.activeJobs() ?? 0,
    ...(docs.jobs ? { limits: docs.jobs.limits } : {}),
    features: docs.features,
    operations: catalogue.operations.map((e) => ({
      id: e.id,
      route: e.route,
      summary: e.summary,
      price_usd: e.price,
      price_depends_on_input: e.priceDependsOnInput,
      timeout_sec: e.timeoutSec,
      ...(e.engine ? { engine: e.engine.engine, available: e.engine.available, ...(e.engine.model ? { model: e.engine.model } : {}) } : {}),
    })),
    catalogue: catalogue.skills.map((s) => ({
      id: s.id,
      name: s.id,
      description: s.summary,
      endpoint: "/v1/jobs",
      method: "POST",
      price: s.listPrice,
      price_usd: s.price,
      async: s.async,
      timeout_sec: s.timeoutSec,
      ...(s.engine ? { engine: s.engine.engine, available: s.engine.available, ...(s.engine.model ? { model: s.engine.model } : {}) } : {}),
      examples: s.examples.map((x) => ({ request: { skill: s.id, ...(x.input as object) }, ...(x.output !== undefined ? { [s.async ? "response_poll" : "response"]: x.output } : {}) })),
    })),
  };
}

/** spec job-worker §9: the service version string the agent card carries. */
export const agentCardServiceVersion = "3.4.1-opt";

/**
 * An A2A v1.0 AgentCard (name, description, supportedInterfaces, version, capabilities, default
 * modes, skills with id/name/description/tags), keeping `url`, `protocolVersion` and `preferredTransport`
 * for v0.3 readers (the card the SDK's compatibility layer writes with `embedV1Interfaces`: one
 * document both kinds read). Interfaces: A2A JSON-RPC at /a2a in v1.0 and v0.3 (the A2A x402 extension).
 */
function agentCard(docs: DocsContext) {
  const all = [...docs.catalogue.operations, ...docs.catalogue.skills];
  const operationIds = new Set(docs.catalogue.operations.map((e) => e.id));
  const figures = docs.jobs?.stats();
  return {
    name: serviceName,
    description:
      `Pay-per-call web evidence and job skills for AI agents, paid per call with x402 v2 (exact scheme, USDC on ${docs.catalogue.pricedNetworks.map((n) => n.label).join(" or ")}). Skills: POST /v1/jobs with a skill field; async ones answer 202 and are polled at GET /v1/jobs/{id}.`,
    version: agentCardServiceVersion,
    // A2A messaging at /a2a: JSON-RPC in A2A v1.0 and in v0.3 (selected by the A2A-Version header), paid with the A2A x402 extension.
    supportedInterfaces: a2aInterfaces(docs.baseUrl),
    // Not A2A bindings: the same skills as MCP tools (stateless Streamable HTTP, paid with x402's MCP transport) and as the HTTP jobs API.
    mcp: { url: new URL("/mcp", docs.baseUrl).toString(), transport: "streamable-http", tools: "tools/list" },
    jobs: { url: new URL("/v1/jobs", docs.baseUrl).toString(), openapi: new URL("/openapi.json", docs.baseUrl).toString() },
    // v0.3 readers: the same endpoint (no A2A-Version header means 0.3).
    url: new URL(A2A_PATH, docs.baseUrl).toString(),
    protocolVersion: "0.3.0",
    preferredTransport: "JSONRPC",
    provider: { organization: serviceName, url: docs.baseUrl },
    documentationUrl: new URL("/openapi.json", docs.baseUrl).toString(),
    capabilities: {
      streaming: true,
      pushNotifications: false,
      stateTransitionHistory: false,
      extensions: [{ uri: X402_EXTENSION_URI, description: "Paid skills answer input-required with x402.payment.required; pay on the same task with x402.payment.payload (x402 v2, standalone flow).", required: false }],
    },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: all.map((e) => ({
      // A job skill may share its id with an endpoint (web.extract is sold both ways): the card's ids stay unique.
      id: e.kind === "skill" && operationIds.has(e.id) ? `jobs.${e.id}` : e.id,
      name: e.id,
      description: e.summary,
      tags: [...new Set([e.kind === "plugin" ? operationArea(e).replace(" ", "-") : "job", ...(e.kind === "skill" ? [e.async ? "async" : "sync"] : []), ...e.id.split(".")])],
      examples: e.examples.map((x) => JSON.stringify(e.kind === "skill" ? { skill: e.id, ...(x.input as object) } : x.input)),
      inputModes: ["application/json"],
      outputModes: ["application/json"],
      price: { currency: "USDC", ...e.price },
      endpoint: e.kind === "skill" ? `POST /v1/jobs/${e.id}` : e.route,
      ...(e.engine ? { engine: e.engine.engine, available: e.engine.available, ...(e.engine.model ? { model: e.engine.model } : {}) } : {}),
    })),
    payments: { protocol: "x402", version: 2, scheme: "exact", networks: docs.payments.networks.map((n) => ({ network: n.network, asset: n.asset, pay_to: n.payTo })) },
    open_for_work: docs.manager.openForWork,
    ...(docs.jobs ? { limits: docs.jobs.limits } : {}),
    ...(figures ? { sla: figures.sla } : {}),
    // Free documents beyond the card: the capital board, the directory, peers and how to buy.
    links: Object.fromEntries(
      [["capabilities", "/v1/capabilities"], ["capital_board", "/v1/capital"], ["capital_tickets", "/v1/capital/tickets"], ["directory", "/v1/directory"], ["directory_listings", "/v1/directory/listings"], ["circle", "/v1/circle"], ["playbook", "/v1/playbook"], ["evidence_keys", jwksPath], ["evidence_verify", evidenceVerifyPath]].map(([k, path]) => [k, new URL(path!, docs.baseUrl).toString()]),
    ),
    api_version: apiVersion,
  };
}

function manager(docs: DocsContext) {
  return {
    open_for_work: docs.manager.openForWork,
    pause_reason: docs.manager.pauseReason,
    last_manager_run: docs.manager.updatedAt,
    notes: docs.manager.openForWork ? "" : "Paid work is refused with 503 while paused; free endpoints keep working.",
  };
}

/** spec §2.5: public reputation from this server's own job rows. */
function trust(docs: DocsContext) {
  const figures = docs.jobs?.stats();
  return {
    ok: true,
    service: serviceName,
    open_for_work: docs.manager.openForWork,
    active_jobs: docs.jobs?.activeJobs() ?? 0,
    manager: manager(docs),
    stats_7d: figures?.stats_7d ?? null,
    sla: figures?.sla ?? null,
    payment_timing:
      "Async jobs: the payment is verified at submission and settled when the job completes; the result is released only after settlement succeeded. Where an authorization cannot outlive the job (Algorand signs for about 10 rounds), it is settled at acceptance and a failure through our fault records a refund due.",
    refunds: "Failed work is never settled. When a payment was settled at acceptance and the job then failed through our fault, a refund is recorded on the job (GET /v1/jobs/{id}: payment.refund). Where the operator configured a refund account it is sent back to the paying wallet automatically, exactly once, and payment.refund shows the transaction; otherwise contact the operator with the job id within 7 days.",
  };
}

function about(docs: DocsContext, freeRoutes: readonly FreeRoute[]) {
  const figures = docs.jobs?.stats();
  return {
    ok: true,
    service: serviceName,
    version: docs.productVersion,
    description:
      `Tollbooth sells web evidence (page text, PDF text, change checks) and bounded job skills to agents, per call, with x402 v2. No account or API key: pay with USDC on ${docs.catalogue.pricedNetworks.map((n) => n.label).join(" or ")}. Free discovery first: /v1/capabilities, /v1/trust, /openapi.json.`,
    open_for_work: docs.manager.openForWork,
    manager: manager(docs),
    operations: docs.catalogue.operations.map((e) => e.id),
    skills: docs.catalogue.skills.map((e) => e.id),
    jobs: { submit: "POST /v1/jobs", poll: "GET /v1/jobs/{id}", statuses: jobStatuses, transitions: jobTransitions },
    ...(docs.jobs ? { limits: docs.jobs.limits } : {}),
    stats_7d: figures?.stats_7d ?? null,
    sla: figures?.sla ?? null,
    free_endpoints: [...freeRoutes.map((r) => r.path), jwksPath, didDocumentPath, `POST ${evidenceVerifyPath}`],
  };
}

function adsMd(docs: DocsContext): string {
  const line = (e: { id: string; summary: string; listPrice: string }) => `- ${e.id} ($${e.listPrice}): ${e.summary}`;
  return [
    `# ${serviceName}: pay-per-call web evidence and job skills`,
    "",
    `Open for work: ${docs.manager.openForWork ? "yes" : `no (${docs.manager.pauseReason})`}. No account, no API key: pay per call with x402 v2 (USDC on ${docs.catalogue.pricedNetworks.map((n) => n.label).join(" or ")}).`,
    "",
    "## Web evidence",
    ...docs.catalogue.operations.filter((e) => operationArea(e) === "web evidence").map(line),
    ...(docs.catalogue.operations.some((e) => operationArea(e) !== "web evidence") ? ["", "## Other paid endpoints", ...docs.catalogue.operations.filter((e) => operationArea(e) !== "web evidence").map(line)] : []),
    "",
    "## Job skills (POST /v1/jobs)",
    ...docs.catalogue.skills.map(line),
    "",
    `Start free: GET ${new URL("/v1/capabilities", docs.baseUrl)} · trust: ${new URL("/v1/trust", docs.baseUrl)} · OpenAPI: ${new URL("/openapi.json", docs.baseUrl)}`,
    "",
  ].join("\n");
}

/** x402 discovery: every paid resource of this server. */
function wellKnownX402(docs: DocsContext) {
  const url = (path: string) => new URL(path, docs.baseUrl).toString();
  return {
    version: 1,
    x402Version: 2,
    resources: [
      ...docs.catalogue.operations.map((e) => url(e.route.replace(/^POST /, ""))),
      ...(docs.catalogue.skills.length ? [url("/v1/jobs")] : []),
      ...docs.catalogue.skills.map((e) => url(`/v1/jobs/${e.id}`)),
    ],
    networks: docs.payments.networks.map((n) => ({ network: n.network, asset: n.asset, pay_to: n.payTo })),
    discovery: { openapi: url("/openapi.json"), capabilities: url("/v1/capabilities"), agent_card: url("/.well-known/agent-card.json") },
    // The same operations and skills as MCP tools, paid through x402's MCP transport (_meta["x402/payment"]).
    mcp: { url: url("/mcp"), transport: "streamable-http", payment: "x402/payment" },
    // The same operations and skills as an A2A agent, paid through the A2A x402 extension (x402.payment.* message metadata).
    a2a: { url: url(A2A_PATH), binding: "JSONRPC", protocolVersion: "1.0", protocolVersions: ["1.0", "0.3"], extension: X402_EXTENSION_URI, payment: "x402.payment.payload" },
  };
}

const agentCardRoute = (path: string): FreeRoute => ({
  path,
  contentType: "application/json",
  summary: "A2A v1.0 agent card: skills, payments, limits, SLA",
  render: agentCard,
  reads: { jobs: { stats: true } },
  cacheSeconds: 300,
});

const openingRoutes = (freeRoutes: readonly FreeRoute[]): readonly FreeRoute[] => [
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
    // Uptime is in whole seconds; a pause made by another process shows within a second anyway.
    heldForMs: 1000,
  },
  {
    path: "/openapi.json",
    contentType: "application/json",
    summary: "OpenAPI 3.1: request schemas, error codes, x-payment-info",
    render: (docs) => renderOpenApi({ catalogue: docs.catalogue, payments: docs.payments, baseUrl: docs.baseUrl, freeRoutes, signaturesDirectory: docs["fetch-identity"]?.signaturesDirectory === true }),
    reusedWhile: byBaseUrl,
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
    reusedWhile: () => "",
  },
  { path: "/v1/capabilities", contentType: "application/json", summary: "Free cold-start probe: open_for_work, prices, skills, wallets", render: capabilities, reusedWhile: capabilitiesInputs, reads: { jobs: { active: true } } },
  { path: "/v1/about", contentType: "application/json", summary: "Service description, job statuses, limits, stats_7d and sla", render: (docs) => about(docs, freeRoutes), reads: { jobs: { stats: true } } },
  { path: "/v1/trust", contentType: "application/json", summary: "Public reputation: stats_7d and sla from the last 168 hours of jobs, manager state", render: trust, reads: { jobs: { active: true, stats: true } } },
  { path: "/ads.md", contentType: "text/markdown", summary: "Plain-text advertisement of what is sold here", render: adsMd },
  { path: "/.well-known/x402", contentType: "application/json", summary: "x402 discovery: every paid resource", render: wellKnownX402, reusedWhile: byBaseUrl },
  { path: "/llms.txt", contentType: "text/plain", summary: "llms.txt: what is sold here, for language models", render: renderLlmsTxt, reusedWhile: byBaseUrl },
  { path: "/skill.md", contentType: "text/markdown", summary: "Every operation and skill with fields, prices and examples", render: renderSkillMd, reusedWhile: byBaseUrl },
  { path: "/recipes.md", contentType: "text/markdown", summary: "One copy-paste recipe per operation", render: renderRecipesMd, reusedWhile: byBaseUrl },
  { path: "/workflows.md", contentType: "text/markdown", summary: "How calls, payments and jobs fit together", render: renderWorkflowsMd, reusedWhile: byBaseUrl },
  { path: "/pilot.md", contentType: "text/markdown", summary: "Your first paid call, step by step", render: renderPilotMd, reusedWhile: byBaseUrl },
];

/** After the modules' documents: the circle, the playbook and the agent card. */
const closingRoutes: readonly FreeRoute[] = [
  { path: "/v1/circle", contentType: "application/json", summary: "Peer sellers: this seller and the listed peers, with how to join", render: renderCircle },
  { path: "/v1/playbook", contentType: "application/json", summary: "How an agent buys here, step by step, generated from the registry", render: renderPlaybook },
  agentCardRoute("/agent-card.json"),
  agentCardRoute("/.well-known/agent-card.json"),
];

/**
 * The free documents: the core's, each feature module's (`freeDocuments`, in module order) and the
 * closing ones. /openapi.json and /v1/about list the very list they are part of.
 */
export function freeRoutesWith(moduleDocuments: readonly FreeRoute[]): readonly FreeRoute[] {
  const routes: FreeRoute[] = [];
  routes.push(...openingRoutes(routes), ...moduleDocuments, ...closingRoutes);
  return routes;
}

/** The core's documents alone (renderers without a server, tests). */
export const freeRoutes: readonly FreeRoute[] = freeRoutesWith([]);
