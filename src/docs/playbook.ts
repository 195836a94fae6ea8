/**
 * @module docs/playbook — two free JSON documents written from the registry and the directory:
 * `/v1/playbook` (how an agent buys here, step by step) and `/v1/circle` (this seller and the
 * peer sellers its operator lists, and how to join them). Nothing in them is written by hand
 * per skill: a new plugin file appears in both.
 */
import { type CatalogueEntry, operationArea, serviceName } from "../plugin/catalogue.ts";
import type { DocsContext } from "./docs-context.ts";

const priced = (e: CatalogueEntry) => ({ id: e.id, summary: e.summary, price_usd: e.listPrice, price_depends_on_input: e.priceDependsOnInput, timeout_sec: e.timeoutSec });

export function renderPlaybook(docs: DocsContext) {
  const url = (path: string) => new URL(path, docs.baseUrl).toString();
  // URL templates keep their braces ({id}), which new URL would percent-encode.
  const template = (path: string) => `${new URL(docs.baseUrl).origin}${path}`;
  const { operations, skills } = docs.catalogue;
  const skill = (id: string) => skills.find((s) => s.id === id);
  const quote = skill("job.quote");
  const runSkills = skills.filter((s) => s.id.startsWith("job.run."));
  const example = skills.find((s) => !s.async) ?? skills[0];
  const networks = docs.payments.networks.map((n) => ({ network: n.network, asset: n.asset, pay_to: n.payTo }));
  return {
    ok: true,
    service: serviceName,
    playbook: "How an agent buys here, step by step. Every paid call is one HTTP request paid with x402 v2 (exact scheme): no account, no API key.",
    payments: { enabled: docs.payments.enabled, protocol: "x402", version: 2, scheme: "exact", networks },
    steps: [
      {
        step: 1,
        name: "capabilities",
        what: "Free cold-start probe: open_for_work, every skill with its price, wallets, limits.",
        request: { method: "GET", url: url("/v1/capabilities") },
        also: [url("/openapi.json"), url("/.well-known/agent-card.json"), url("/llms.txt"), url("/v1/trust")],
      },
      {
        step: 2,
        name: "quote",
        what: quote
          ? `Custom work: buy job.quote ($${quote.listPrice}) with {goal, budget_usdc}; accept → buy the returned run skill (${runSkills.map((s) => s.id).join(", ") || "job.run.*"}) with quote_id; map_to_existing → buy that skill instead; reject → stop.`
          : "Named skills need no quote: pick one from the catalogue. Custom work (job.quote) is not offered on this server.",
        ...(quote ? { request: { method: "POST", url: url("/v1/jobs"), body: { skill: "job.quote", ...(quote.examples[0]?.input as object) } } } : {}),
      },
      {
        step: 3,
        name: "price preview",
        what: "POST the body without PAYMENT-SIGNATURE: the free 402 answer's PAYMENT-REQUIRED header (base64 JSON) states the exact total on every network. Invalid bodies get 400 and refusals (unknown ticket, closed listing) their own code before any 402.",
        ...(example ? { request: { method: "POST", url: url("/v1/jobs"), body: { skill: example.id, ...(example.examples[0]?.input as object) } } } : {}),
      },
      {
        step: 4,
        name: "run",
        what: "Sign one offer with an x402 v2 client and send the identical body again with PAYMENT-SIGNATURE. Sync skills and the evidence endpoints answer 200 with PAYMENT-RESPONSE; async skills answer 202 with job_id: poll GET /v1/jobs/{id} after Retry-After. Failed work is never settled.",
        poll: { method: "GET", url: template("/v1/jobs/{id}") },
      },
      {
        step: 5,
        name: "retries without paying twice",
        what: "Send Idempotency-Key on POST /v1/jobs (same key and body: the same job, never charged twice). For any paid route put a payment-identifier id in the payment payload's extensions; a retry under it gets the first answer. If an answer was lost, look the payment up before paying again.",
        lookup: { method: "GET", url: template("/v1/payments/{transaction or nonce}") },
      },
    ],
    paid_endpoints: operations.map((e) => ({ ...priced(e), route: e.route, area: operationArea(e) })),
    skills: skills.map((s) => ({ ...priced(s), async: s.async, request: { method: "POST", url: url("/v1/jobs"), body: { skill: s.id, ...(s.examples[0]?.input as object) } } })),
    more: {
      capital_board: url("/v1/capital"),
      directory: url("/v1/directory"),
      circle: url("/v1/circle"),
      errors: "Every error is {ok: false, error: CODE, status, message}; codes are listed in /openapi.json under x-error-codes.",
    },
  };
}

export async function renderCircle(docs: DocsContext) {
  const url = (path: string) => new URL(path, docs.baseUrl).toString();
  const peers = ((await docs.directory?.peers()) ?? []).filter((p) => p.skills.length > 0 || Object.keys(p.price_summary).length > 0);
  return {
    ok: true,
    circle: "peer sellers: agents that sell skills per call, listed in this server's directory",
    this_seller: {
      name: serviceName,
      url: docs.baseUrl,
      agent_card: url("/.well-known/agent-card.json"),
      capabilities: url("/v1/capabilities"),
      open_for_work: docs.manager.openForWork,
      payments: { protocol: "x402", version: 2, scheme: "exact", networks: docs.payments.networks.map((n) => n.network) },
      skills: [...docs.catalogue.operations, ...docs.catalogue.skills].map((e) => ({ id: e.id, price_usd: e.listPrice })),
    },
    peers: peers.map((p) => ({
      listing_id: p.id,
      name: p.name,
      endpoint: p.endpoint,
      agent_card_url: p.agent_card_url,
      skills: p.skills,
      prices: p.price_summary,
      networks: p.networks,
      reachable: p.check.reachable,
      open_for_work: p.check.open_for_work,
      last_verified_at: p.last_verified_at,
    })),
    count: peers.length,
    how_to_join: [
      "Sell per call with x402 v2 and publish a free capabilities probe (open_for_work, skills, prices, networks) at /v1/capabilities.",
      "Publish an A2A agent card at /.well-known/agent-card.json with your skills, their prices and your payment networks.",
      "Ask this server's operator to list you (tollbooth directory add --card URL); the directory then re-checks your card and capabilities a few times an hour.",
      "Peer intelligence across the circle is sold by network.peer_survey; contact packs by directory.intro.",
    ],
    directory: url("/v1/directory"),
    playbook: url("/v1/playbook"),
  };
}
