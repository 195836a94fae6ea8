/**
 * @module admin/listener — the operator's own listener (`--admin-port`, 127.0.0.1 by default):
 * `/metrics` for Prometheus, the dashboard page and the JSON it reads, pause and resume. Never
 * mounted on the public port.
 *
 * Guard: with `--admin-token`, every route but the (data-free) page needs
 * `Authorization: Bearer <token>`. Without one (loopback only, config enforces it), a browser
 * page from another site cannot use it: requests naming another `Origin`, or a `Host` that is not
 * an address or localhost (DNS rebinding), are refused, and changes need a JSON body (which a
 * cross-site form cannot send without a preflight we never answer).
 */
import { timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { ApiError } from "../errors.ts";
import type { ClientResolver } from "../http/client-address.ts";
import { newRequestId, type RequestContext } from "../http/request-context.ts";
import { errorResponse, jsonResponse } from "../http/respond.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../database.ts";
import dashboardHtml from "./dashboard.html" with { type: "text" };
import { createDashboardData } from "./dashboard-data.ts";
import type { Metrics } from "./metrics.ts";

export interface AdminDeps {
  readonly store: Store;
  readonly metrics: Metrics;
  readonly clients: ClientResolver;
  readonly log: Logger;
  readonly token: string | undefined;
  readonly trustProxy: string | undefined;
  readonly now?: () => Date;
}

const maxReasonChars = 300;
// bun-types types every .html import as a full-stack HTML bundle; with type "text" it is the file's text.
const dashboardPage = dashboardHtml as unknown as string;

export function createAdminHandler(deps: AdminDeps): (request: Request) => Promise<Response> {
  const data = createDashboardData(deps.store, deps.now);
  const tokenBytes = deps.token ? Buffer.from(deps.token) : undefined;
  const authorized = (request: Request) => {
    if (!tokenBytes) return true;
    const given = Buffer.from(/^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "");
    return given.length === tokenBytes.length && timingSafeEqual(given, tokenBytes);
  };

  return async (request) => {
    const url = new URL(request.url);
    const context: RequestContext = { id: newRequestId(), startedAt: performance.now(), clientIp: "admin", origin: url.origin };
    try {
      refuseForeignPages(request, url, Boolean(tokenBytes));
      if (request.method === "GET" && (url.pathname === "/" || url.pathname === "/dashboard")) {
        return new Response(dashboardPage, {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "cache-control": "no-store",
            "content-security-policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'",
            "x-frame-options": "DENY",
          },
        });
      }
      if (!authorized(request)) throw new ApiError("ADMIN_UNAUTHORIZED");
      const route = `${request.method} ${url.pathname}`;
      switch (route) {
        case "GET /metrics":
          return new Response(await deps.metrics.text(), { headers: { "content-type": deps.metrics.contentType } });
        case "GET /api/summary": {
          const days = Number(url.searchParams.get("days") ?? 30);
          if (!Number.isInteger(days) || days < 1 || days > 366) throw new ApiError("INVALID_REQUEST", { message: "days must be a whole number from 1 to 366." });
          return jsonResponse({ ok: true, ...(await data.summary(days)) });
        }
        case "GET /api/clients":
          return jsonResponse({ ok: true, trust_proxy: deps.trustProxy ?? null, peers: deps.clients.peers() });
        case "POST /api/pause": {
          const body = await jsonBody(request);
          const reason = typeof body.reason === "string" ? body.reason.trim() : "";
          if (!reason || reason.length > maxReasonChars) throw new ApiError("INVALID_REQUEST", { message: `reason is required: 1 to ${maxReasonChars} characters callers will see.` });
          await deps.store.settings.pause(reason);
          deps.log.info("paused from the dashboard", { reason });
          return jsonResponse({ ok: true, manager: await deps.store.settings.manager() });
        }
        case "POST /api/resume": {
          await jsonBody(request);
          await deps.store.settings.resume();
          deps.log.info("resumed from the dashboard");
          return jsonResponse({ ok: true, manager: await deps.store.settings.manager() });
        }
        default:
          throw new ApiError("NOT_FOUND", { message: `No admin route ${route}.` });
      }
    } catch (error) {
      return errorResponse(error, context, deps.log);
    }
  };
}

function refuseForeignPages(request: Request, url: URL, hasToken: boolean): void {
  const origin = request.headers.get("origin");
  if (origin && origin !== url.origin) throw new ApiError("ADMIN_FORBIDDEN");
  if (!hasToken) {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (host !== "localhost" && isIP(host) === 0) throw new ApiError("ADMIN_FORBIDDEN");
  }
}

async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  if (!request.headers.get("content-type")?.toLowerCase().startsWith("application/json")) throw new ApiError("UNSUPPORTED_MEDIA_TYPE");
  try {
    const body = (await request.json()) as unknown;
    if (typeof body === "object" && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    throw new ApiError("INVALID_JSON");
  }
  throw new ApiError("INVALID_REQUEST", { message: "Send a JSON object." });
}
