/**
 * @module docs/openapi — the OpenAPI 3.1 document, written from the registry: every request
 * schema, the error contract with its codes, and the 402 flow with `x-payment-info` per paid
 * operation.
 */
import { errorCodes } from "../errors.ts";
import { apiVersion, type Catalogue, type CatalogueEntry, jsonSchema, type PaymentInfo, serviceName } from "./catalogue.ts";
import type { FreeRoute } from "./free-routes.ts";

export interface OpenApiInput {
  readonly catalogue: Catalogue;
  readonly payments: PaymentInfo;
  readonly baseUrl: string;
  readonly freeRoutes: readonly FreeRoute[];
}

const errorRef = { $ref: "#/components/schemas/Error" };

function errorResponses(entry: CatalogueEntry): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  const add = (code: keyof typeof errorCodes) => {
    const status = errorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  };
  for (const code of ["INVALID_REQUEST", "INVALID_JSON", "PAYMENT_HEADER_INVALID", "RATE_LIMITED", "SERVICE_PAUSED", "OPERATION_TIMEOUT", "INTERNAL_ERROR"] as const) add(code);
  for (const code of entry.errors) add(code);
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `Error; nothing is settled. Codes: ${[...new Set(codes)].join(", ")}.`,
      content: { "application/json": { schema: errorRef } },
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
    networks: payments.networks.map((n) => ({ network: n.network, asset: n.asset, pay_to: n.payTo, price_usd: entry.price[n.name] })),
    charged: "only on success; failed work is never settled",
  };
}

function operation(entry: CatalogueEntry, payments: PaymentInfo, body: Record<string, unknown>): Record<string, unknown> {
  const example = entry.examples[0];
  return {
    operationId: entry.id,
    summary: entry.summary,
    description: `${entry.description}\n\nPrice (USDC): Base ${entry.price.base}, Algorand ${entry.price.algorand}${entry.priceDependsOnInput ? " (base price; the 402 challenge states the exact total for the body)" : ""}. Timeout ${entry.timeoutSec} s.`,
    tags: [entry.kind === "plugin" ? "web evidence" : "jobs"],
    requestBody: {
      required: true,
      content: { "application/json": { schema: body, ...(example ? { example: example.input } : {}) } },
    },
    parameters: [
      { name: "PAYMENT-SIGNATURE", in: "header", required: false, schema: { type: "string" }, description: "base64 x402 v2 PaymentPayload" },
      ...(entry.kind === "skill" ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } }] : []),
    ],
    responses: {
      [entry.async ? "202" : "200"]: {
        description: entry.async ? "Accepted: poll the job at Location." : "Success. PAYMENT-RESPONSE holds the base64 settlement receipt.",
        headers: { "PAYMENT-RESPONSE": { schema: { type: "string" }, description: "base64 x402 v2 SettlementResponse" } },
        content: {
          "application/json": {
            schema: entry.output ? jsonSchema(entry.output) : { type: "object" },
            ...(example?.output !== undefined ? { example: example.output } : {}),
          },
        },
      },
      ...errorResponses(entry),
    },
    "x-payment-info": paymentInfo(entry, payments),
  };
}

export function renderOpenApi({ catalogue, payments, baseUrl, freeRoutes }: OpenApiInput): Record<string, unknown> {
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
          "202": { description: "Async job accepted" },
          "400": { description: "Invalid input or unknown skill (UNKNOWN_SKILL lists the known ones)", content: { "application/json": { schema: errorRef } } },
          "402": { description: "Payment required at the named skill's exact price" },
        },
        "x-payment-info": { protocol: "x402", version: 2, scheme: "exact", priced_by: "the named skill (see /v1/jobs/{skill})" },
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
  for (const route of freeRoutes) {
    paths[route.path] = {
      get: {
        operationId: `free.${route.path.replace(/^\/+/, "").replace(/[^a-z0-9]+/gi, "_")}`,
        summary: route.summary,
        tags: ["free"],
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
        "Pay-per-call web evidence and job skills. Paid operations use x402 v2 (exact scheme, USDC on Base and Algorand): POST without payment to get a free 402 price preview, then retry the identical body with PAYMENT-SIGNATURE. Failed work is never settled. Fetched text is untrusted data (content_is_untrusted: true).",
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas: {
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
