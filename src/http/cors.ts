/**
 * @module http/cors — browsers' agents may call the paid routes from any origin: payment headers
 * must be readable (PAYMENT-REQUIRED, PAYMENT-RESPONSE) and sendable (PAYMENT-SIGNATURE). No
 * cookies are used, so a wildcard origin is safe there. The agent doors (/mcp, /a2a) name the one
 * origin they allow instead (http/door-guard.ts); the headers allowed and exposed are the same.
 */
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from "../x402/headers.ts";

/** Headers MCP and A2A clients send after the first exchange (protocol version, stream resumption, extensions). */
const agentRequestHeaders = ["Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID", "X-A2A-Extensions", "A2A-Extensions"];
/** Headers an agent client reads from our answers (the activated A2A extensions). */
const agentAnswerHeaders = ["Mcp-Session-Id", "X-A2A-Extensions", "A2A-Extensions"];

const exposed = [...CORS_EXPOSE_HEADERS, "X-Request-Id", "Location", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Idempotent-Replayed", ...agentAnswerHeaders].join(", ");
const allowed = ["Content-Type", "Accept", ...CORS_ALLOW_HEADERS, "Idempotency-Key", ...agentRequestHeaders].join(", ");

/** The headers every answer carries (set at construction where the response is built here, see answerHeaders). */
export const corsHeaders: Readonly<Record<string, string>> = { "access-control-allow-origin": "*", "access-control-expose-headers": exposed };

export function addCorsHeaders(headers: Headers): void {
  for (const name in corsHeaders) headers.set(name, corsHeaders[name]!);
}

/** The CORS grant to one named origin (the agent doors): the answer varies with the Origin sent. */
export function originGrant(origin: string): Record<string, string> {
  return { "access-control-allow-origin": origin, "access-control-expose-headers": exposed, vary: "Origin" };
}

/** Answer to a CORS preflight (OPTIONS): for any route by default, or granting one origin. */
export function preflightResponse(grant: Readonly<Record<string, string>> = corsHeaders): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...grant,
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": allowed,
      "access-control-max-age": "600",
    },
  });
}
