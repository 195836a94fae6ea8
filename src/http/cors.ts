/**
 * @module http/cors — browsers' agents may call from any origin: payment headers must be readable
 * (PAYMENT-REQUIRED, PAYMENT-RESPONSE) and sendable (PAYMENT-SIGNATURE). No cookies are used, so
 * a wildcard origin is safe.
 */
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from "../x402/headers.ts";

const exposed = [...CORS_EXPOSE_HEADERS, "X-Request-Id", "Location", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Idempotent-Replayed"].join(", ");
const allowed = ["Content-Type", ...CORS_ALLOW_HEADERS, "Idempotency-Key"].join(", ");

/** The headers every answer carries (set at construction where the response is built here, see answerHeaders). */
export const corsHeaders: Readonly<Record<string, string>> = { "access-control-allow-origin": "*", "access-control-expose-headers": exposed };

export function addCorsHeaders(headers: Headers): void {
  for (const name in corsHeaders) headers.set(name, corsHeaders[name]!);
}

/** Answer to a CORS preflight (OPTIONS) for any route. */
export function preflightResponse(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders,
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": allowed,
      "access-control-max-age": "600",
    },
  });
}
