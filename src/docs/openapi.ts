/**
 * @module docs/openapi — the OpenAPI 3.1 document, written from the registry: every request
 * schema, the error contract with its codes, and the 402 flow with `x-payment-info` per paid
 * operation.
 */
import { evidenceVerifyPath, jwksPath } from "../evidence/statement.ts";
import { didDocumentPath } from "../x402/offer-receipt.ts";
import { PAYER_PROOF_HEADER } from "../x402/payer-proof.ts";
import { signaturesDirectoryMediaType, signaturesDirectoryPath } from "../fetch-identity/signatures-directory.ts";
import { errorCodes } from "../errors.ts";
import { jobStatuses, jobStatusMeaning, jobTransitions } from "../jobs/job-status.ts";
import type { PaymentInfo } from "../x402/payment-info.ts";
import { apiVersion, type Catalogue, type CatalogueEntry, jsonSchema, networkPricesText, operationArea, serviceName } from "../plugin/catalogue.ts";

/** A free GET document as the OpenAPI document lists it (free-routes.ts declares them; no import back). */
export interface DocumentedRoute {
  readonly path: string;
  readonly contentType: string;
  readonly summary: string;
  readonly query?: readonly { readonly name: string; readonly description: string; readonly schema: Record<string, unknown> }[];
}

export interface OpenApiInput {
  readonly catalogue: Catalogue;
  readonly payments: PaymentInfo;
  readonly baseUrl: string;
  readonly freeRoutes: readonly DocumentedRoute[];
  /** The fetcher's key directory is served (--fetch-identity on). */
  readonly signaturesDirectory?: boolean;
}

const errorRef = { $ref: "#/components/schemas/Error" };
const jobRef = { $ref: "#/components/schemas/Job" };
const acceptedRef = { $ref: "#/components/schemas/JobAccepted" };

const transitionsText = jobStatuses
  .map((s) => `${s}: ${jobStatusMeaning[s]}${jobTransitions[s].length ? ` (${s} → ${jobTransitions[s].join(" | ")})` : " (final)"}`)
  .join("; ");

/** The job contract: the 202 answer, the polled job with its statuses and transitions. */
const jobSchemas = {
  JobAccepted: {
    type: "object",
    description: "202 answer of an async skill. Poll `poll` (also in Location) no sooner than Retry-After seconds.",
    required: ["ok", "skill", "job_id", "status", "poll", "retry_after_sec"],
    properties: {
      ok: { const: true },
      skill: { type: "string" },
      job_id: { type: "string", pattern: "^job_[0-9a-f]{32}$", description: "128 random bits; the only key to the result." },
      status: { enum: ["queued"] },
      poll: { type: "string", description: "/v1/jobs/{job_id}" },
      retry_after_sec: { type: "integer" },
      settlement: { type: "object", description: "price_usd, settlement (on_completion | at_acceptance | free), settled" },
      request_id: { type: "string" },
    },
  },
  Job: {
    type: "object",
    description: `A job as polled. Transitions: ${transitionsText}. Results are kept until expires_at (job_result_ttl_hours after the end), then deleted (404).`,
    required: ["ok", "id", "job_id", "skill", "status", "created_at"],
    properties: {
      ok: { const: true },
      id: { type: "string" },
      job_id: { type: "string" },
      skill: { type: "string" },
      status: { enum: [...jobStatuses] },
      created_at: { type: "string", format: "date-time" },
      started_at: { type: ["string", "null"], format: "date-time" },
      finished_at: { type: ["string", "null"], format: "date-time" },
      expires_at: { type: ["string", "null"], format: "date-time" },
      retry_after_sec: { type: "integer", description: "Present while queued or running." },
      result: { description: "Present once completed: the skill's output, or a JSON-encoded string when json_only was true." },
      error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } }, description: "Present once failed or expired." },
      payment: { type: "object", description: "price_usd, settlement, settled, and refund {state, reason} when one is recorded." },
    },
  },
};

function errorResponses(entry: CatalogueEntry): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  const add = (code: keyof typeof errorCodes) => {
    const status = errorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  };
  for (const code of ["INVALID_REQUEST", "INVALID_JSON", "PAYMENT_HEADER_INVALID", "RATE_LIMITED", "SERVICE_PAUSED", "OPERATION_TIMEOUT", "INTERNAL_ERROR"] as const) add(code);
  if (entry.kind === "skill") {
    for (const code of ["UNKNOWN_SKILL", "PROMPT_TOO_LONG", "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_IN_PROGRESS"] as const) add(code);
    if (entry.async) add("QUEUE_FULL");
  }
  for (const code of entry.errors) add(code);
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `Error; nothing is settled. Codes: ${[...new Set(codes)].join(", ")}.`,
      content: { "application/json": { schema: errorRef } },
      ...(status === 429 || status === 503
        ? { headers: { "Retry-After": { schema: { type: "integer" } }, ...(status === 429 ? { "RateLimit-Limit": { schema: { type: "integer" } }, "RateLimit-Remaining": { schema: { type: "integer" } }, "RateLimit-Reset": { schema: { type: "integer" } } } : {}) } }
        : {}),
    };
  }
  out["402"] = {
    description:
      "Payment required (no PAYMENT-SIGNATURE) or not accepted. The PAYMENT-REQUIRED header holds base64 JSON of the x402 v2 PaymentRequired (also mirrored in the body); it is a free price preview.",
    headers: { "PAYMENT-REQUIRED": { schema: { type: "string" }, description: "base64 x402 v2 PaymentRequired" } },
    content: { "application/json": { schema: { type: "object" } } },
  };
  return out;
}

function paymentInfo(entry: CatalogueEntry, payments: PaymentInfo): Record<string, unknown> {
  return {
    protocol: "x402",
    version: 2,
    scheme: "exact",
    enabled: payments.enabled,
    price_usd: entry.price,
    price_depends_on_input: entry.priceDependsOnInput,
    // Each network's own price (two networks of one family may be priced apart; `price_usd` keeps one per column).
    networks: payments.networks.map((n) => ({ network: n.network, asset: n.asset, pay_to: n.payTo, price_usd: entry.networkPrices.find((p) => p.network === n.network)?.price })),
    charged: "only on success; failed work is never settled",
  };
}

function operation(entry: CatalogueEntry, payments: PaymentInfo, body: Record<string, unknown>): Record<string, unknown> {
  const example = entry.examples[0];
  return {
    operationId: entry.id,
    summary: entry.summary,
    description: `${entry.description}\n\nPrice (USDC): ${networkPricesText(entry)}${entry.priceDependsOnInput ? " (base price; the 402 challenge states the exact total for the body)" : ""}. Timeout ${entry.timeoutSec} s.`,
    tags: [operationArea(entry)],
    requestBody: {
      required: true,
      content: { "application/json": { schema: body, ...(example ? { example: example.input } : {}) } },
    },
    parameters: [
      { name: "PAYMENT-SIGNATURE", in: "header", required: false, schema: { type: "string" }, description: "base64 x402 v2 PaymentPayload" },
      ...(entry.kind === "skill" ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } }] : []),
    ],
    responses: {
      ...(entry.async
        ? {
            "202": {
              description:
                "Accepted: poll GET /v1/jobs/{id} (Location) after Retry-After seconds. The payment was verified; it is settled when the job completes (PAYMENT-RESPONSE then comes with the completed poll), or already now when the authorization cannot wait (Algorand).",
              headers: {
                Location: { schema: { type: "string" } },
                "Retry-After": { schema: { type: "integer" } },
                "Idempotent-Replayed": { schema: { const: "true" }, description: "Present when this answer replays an earlier request with the same Idempotency-Key." },
              },
              content: { "application/json": { schema: acceptedRef } },
            },
          }
        : {
            "200": {
              description: "Success. PAYMENT-RESPONSE holds the base64 settlement receipt.",
              headers: { "PAYMENT-RESPONSE": { schema: { type: "string" }, description: "base64 x402 v2 SettlementResponse" } },
              content: {
                "application/json": {
                  schema: entry.output ? jsonSchema(entry.output) : { type: "object" },
                  ...(example?.output !== undefined ? { example: example.output } : {}),
                },
              },
            },
          }),
      ...errorResponses(entry),
    },
    "x-payment-info": paymentInfo(entry, payments),
  };
}

/** GET and DELETE of a crawl's status URL, for its payer (crawl/crawl-service.ts, x402/payer-proof.ts). */
function crawlStatusPaths(): Record<string, unknown> {
  const parameters = [
    { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^crawl_[0-9a-f]{32}$" } },
    {
      name: PAYER_PROOF_HEADER,
      in: "header",
      required: false,
      description:
        "The payer's proof: a Sign-In-With-X payload (x402 SIWX, CAIP-122) signed by the wallet that paid for the crawl, for this URL, with a fresh nonce, at most 5 minutes old, as base64 JSON. Needed for a paid crawl; a crawl bought with payments off is opened by its id alone.",
      schema: { type: "string" },
    },
  ];
  const refusals = {
    "401": { description: "PAYER_PROOF_REQUIRED (no proof; `challenge` has the fields to sign) or PAYER_PROOF_INVALID (malformed, bad signature, expired, another resource or network, or a nonce used already; `reason`)", content: { "application/json": { schema: errorRef } } },
    "403": { description: "CRAWL_ACCESS_DENIED: a valid proof of another wallet than the payer's", content: { "application/json": { schema: errorRef } } },
    "404": { description: "CRAWL_NOT_FOUND: unknown id, or the crawl expired and was deleted with its pages", content: { "application/json": { schema: errorRef } } },
  };
  return {
    get: {
      operationId: "web.crawl.status",
      summary: "Free, for the crawl's payer: status, counts and a page of results (signed read results or inline errors), paged by cursor.",
      tags: ["free"],
      parameters: [
        ...parameters,
        { name: "cursor", in: "query", required: false, schema: { type: "string", pattern: "^[0-9]+$" } },
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
      ],
      responses: { "200": { description: "{crawl_id, url, status, limit, counts, stop_reason?, error?, refund_due_usd?, created_at, finished_at, expires_at, pages[], next_cursor, more_pages}" }, ...refusals },
    },
    delete: {
      operationId: "web.crawl.cancel",
      summary: "Free, for the crawl's payer: cancels it (nothing more is fetched; the pages not read are refunded as its status says).",
      tags: ["free"],
      parameters,
      responses: { "200": { description: "The crawl's status after the cancel" }, ...refusals },
    },
  };
}

export function renderOpenApi({ catalogue, payments, baseUrl, freeRoutes, signaturesDirectory }: OpenApiInput): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of catalogue.operations) {
    const path = entry.route.replace(/^POST /, "");
    paths[path] = { post: operation(entry, payments, jsonSchema(entry.input)) };
  }
  for (const entry of catalogue.skills) {
    const input = jsonSchema(entry.input);
    const body = {
      ...input,
      properties: { skill: { const: entry.id, description: "The skill id; optional on this path." }, ...(input.properties as object) },
    };
    paths[`/v1/jobs/${entry.id}`] = { post: { ...operation(entry, payments, body), operationId: `jobs.${entry.id}` } };
  }
  if (catalogue.skills.length > 0) {
    paths["/v1/jobs"] = {
      post: {
        operationId: "jobs.submit",
        summary: "Submit a job: `skill` plus that skill's fields. Sync skills answer 200; async ones 202 (poll GET /v1/jobs/{id}).",
        tags: ["jobs"],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                oneOf: catalogue.skills.map((s) => {
                  const input = jsonSchema(s.input);
                  return { ...input, required: ["skill", ...((input.required as string[]) ?? [])], properties: { skill: { const: s.id }, ...(input.properties as object) } };
                }),
              },
            },
          },
        },
        responses: {
          "200": { description: "Sync skill result: {ok, skill, result}" },
          "202": { description: "Async job accepted: poll Location (GET /v1/jobs/{id}) after Retry-After", content: { "application/json": { schema: acceptedRef } } },
          "409": { description: "IDEMPOTENCY_IN_PROGRESS: the first request with this Idempotency-Key is still being accepted", content: { "application/json": { schema: errorRef } } },
          "422": { description: "IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with a different body", content: { "application/json": { schema: errorRef } } },
          "429": { description: "RATE_LIMITED: Retry-After and RateLimit-* headers; nothing charged", content: { "application/json": { schema: errorRef } } },
          "503": { description: "SERVICE_PAUSED (with pause_reason) or QUEUE_FULL (with Retry-After); nothing charged", content: { "application/json": { schema: errorRef } } },
          "400": { description: "Invalid input or unknown skill (UNKNOWN_SKILL lists the known ones)", content: { "application/json": { schema: errorRef } } },
          "402": { description: "Payment required at the named skill's exact price" },
        },
        "x-payment-info": {
          protocol: "x402",
          version: 2,
          scheme: "exact",
          priced_by: "the named skill (see /v1/jobs/{skill})",
          note: "The 402 challenge quotes the exact price of the skill named in the body, not the highest skill price: the exact scheme charges what was signed, so a challenge at the maximum would overcharge cheaper skills.",
        },
      },
    };
  }
  if (catalogue.skills.length > 0) {
    paths["/v1/jobs/{id}"] = {
      get: {
        operationId: "jobs.get",
        summary: "Poll a job (free): status, timestamps, and result once completed (released only after settlement succeeded).",
        description: `Statuses and transitions: ${transitionsText}.`,
        tags: ["jobs"],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^job_[0-9a-f]{32}$" } }],
        responses: {
          "200": {
            description: "The job. Retry-After while queued or running; PAYMENT-RESPONSE once completed and settled.",
            headers: { "Retry-After": { schema: { type: "integer" } }, "PAYMENT-RESPONSE": { schema: { type: "string" } } },
            content: { "application/json": { schema: jobRef } },
          },
          "404": { description: "JOB_NOT_FOUND: unknown id, or the result expired and was deleted.", content: { "application/json": { schema: errorRef } } },
        },
      },
    };
  }
  paths["/v1/payments/{id}"] = {
    get: {
      operationId: "payments.lookup",
      summary: "Free lookup of a payment by settlement transaction id or authorization nonce: pending, settled, failed or unused (never content).",
      tags: ["free"],
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", maxLength: 200 } }],
      responses: {
        "200": { description: "{ ok, payment: { id, state, network, payer, amount, nonce, transaction, reason, updatedAt } }" },
        "404": { description: "PAYMENT_NOT_FOUND", content: { "application/json": { schema: errorRef } } },
      },
    },
  };
  paths[jwksPath] = {
    get: {
      operationId: "evidence.jwks",
      summary:
        "Free JWK Set of the Ed25519 keys that sign evidence results (the signing key first, retired keys stay published), then the ECDSA P-384 key that signs WACZ archives (datapackage-digest.json).",
      tags: ["free"],
      responses: {
        "200": {
          description: "{ keys: [{ kty: OKP, crv: Ed25519, x, kid, alg: EdDSA, use: sig }, …, { kty: EC, crv: P-384, x, y, kid, alg: ES384, use: sig, key_ops: [verify], wacz_signature }] }",
          content: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  };
  paths[didDocumentPath] = {
    get: {
      operationId: "evidence.did",
      summary: "Free DID document of did:web:<this host>: the evidence keys as verification methods, which the kid of signed x402 offers and receipts (offer-receipt extension) resolves to.",
      tags: ["free"],
      responses: { "200": { description: "{ id, verificationMethod: [{ id: did:web:…#kid, type: JsonWebKey2020, publicKeyJwk }], assertionMethod }", content: { "application/did+json": { schema: { type: "object" } } } } },
    },
  };
  if (catalogue.operations.some((e) => e.id === "web.crawl")) paths["/v1/web/crawl/{id}"] = crawlStatusPaths();
  if (signaturesDirectory) {
    paths[signaturesDirectoryPath] = {
      get: {
        operationId: "fetch_identity.directory",
        summary:
          "Free key directory of this server's fetcher (Web Bot Auth, --fetch-identity on): the Ed25519 keys its outgoing requests are signed with (RFC 9421, Signature-Agent names this server), the answer itself signed by the current key.",
        tags: ["free"],
        responses: { "200": { description: "{ keys: [{ kty: OKP, crv: Ed25519, x, kid }] }, with Signature and Signature-Input headers", content: { [signaturesDirectoryMediaType]: { schema: { type: "object" } } } } },
      },
    };
  }
  paths[evidenceVerifyPath] = {
    post: {
      operationId: "evidence.verify",
      summary: "Free check of a signed evidence result (as received, optionally with source_base64): signature, key id, fields against the statement, text and source hashes.",
      tags: ["free"],
      requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["attestation"], description: "A result (or batch) as received; add source_base64 to check the source hash." } } } },
      responses: {
        "200": { description: "{ ok, valid, failed?: { part, ok, detail }, checks: [...], statements: [...] }: valid is true only when every check holds" },
        "400": { description: "EVIDENCE_MALFORMED with part: the body is not a signed result (or INVALID_JSON)", content: { "application/json": { schema: errorRef } } },
      },
    },
  };
  for (const route of freeRoutes) {
    paths[route.path] = {
      get: {
        operationId: `free.${route.path.replace(/^\/+/, "").replace(/[^a-z0-9]+/gi, "_")}`,
        summary: route.summary,
        tags: ["free"],
        ...(route.query ? { parameters: route.query.map((q) => ({ name: q.name, in: "query", required: false, description: q.description, schema: q.schema })) } : {}),
        responses: { "200": { description: route.summary, content: { [route.contentType]: { schema: route.contentType === "application/json" ? { type: "object" } : { type: "string" } } } } },
      },
    };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: serviceName,
      version: apiVersion,
      description:
        `Pay-per-call web evidence and job skills. Paid operations use x402 v2 (exact scheme, USDC on ${catalogue.pricedNetworks.map((n) => n.label).join(" and ")}): POST without payment to get a free 402 price preview, then retry the identical body with PAYMENT-SIGNATURE. Failed work is never settled. Fetched text is untrusted data (content_is_untrusted: true).`,
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas: {
        ...jobSchemas,
        Error: {
          type: "object",
          required: ["ok", "error", "status", "message"],
          properties: {
            ok: { const: false },
            error: { type: "string", enum: Object.keys(errorCodes) },
            status: { type: "integer" },
            message: { type: "string" },
            request_id: { type: "string" },
          },
        },
      },
    },
    "x-error-codes": Object.fromEntries(Object.entries(errorCodes).map(([code, spec]) => [code, { status: spec.status, message: spec.message }])),
  };
}
