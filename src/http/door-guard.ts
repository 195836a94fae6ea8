/**
 * @module http/door-guard — who may drive the agent doors (/mcp, /a2a): JSON-RPC endpoints a web
 * page could post to. A request whose Host, or whose Origin, names a host outside the allow-list
 * gets 403 before its body is read (HOST_NOT_ALLOWED, ORIGIN_NOT_ALLOWED), and CORS on the doors
 * grants only an allowed Origin (never `*`).
 *
 * The list comes from configuration alone: the --public-url host, the bind address, the loopback
 * names when bound to loopback (or to every interface), and --allowed-hosts. Never from the
 * request: a page on evil.example whose name an attacker points at 127.0.0.1 (DNS rebinding)
 * sends `Host: evil.example` and `Origin: http://evil.example`, which agree with each other.
 * Hosts are matched by name, whatever the port.
 */
import { ApiError } from "../errors.ts";
import { originGrant, preflightResponse } from "./cors.ts";
import { answerHeaders, contextOf, type RequestContext } from "./request-context.ts";
import { validHost } from "./request-target.ts";

export interface DoorHostsConfig {
  /** The bind address (--host). */
  readonly host: string;
  readonly publicUrl?: string | undefined;
  /** --allowed-hosts as given: host names or addresses, comma-separated. */
  readonly allowedHosts?: string | undefined;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]"]);

/** A host name as matched: lowercased, an IPv6 address in brackets, no trailing dot. */
function hostName(value: string): string {
  const lower = value.toLowerCase().replace(/\.$/, "");
  return lower.includes(":") && !lower.startsWith("[") ? `[${lower}]` : lower;
}

const isLoopbackBind = (host: string) => host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);

/** --allowed-hosts as host names, or what is wrong with it (a scheme, a path, a port, an empty entry). */
export function parseAllowedHosts(list: string): { readonly hosts: readonly string[] } | { readonly problems: readonly string[] } {
  const hosts: string[] = [];
  const problems: string[] = [];
  for (const entry of list.split(",").map((e) => e.trim())) {
    const name = hostName(entry);
    // validHost accepts host[:port]; a port here would suggest ports are matched, which they are not.
    if (validHost(name) === undefined || /:\d+$/.test(name.replace(/^\[.*\]/, ""))) problems.push(`"${entry}" is not a host name or address (no scheme, port or path)`);
    else hosts.push(name);
  }
  return problems.length > 0 ? { problems } : { hosts };
}

/** The host names the agent doors answer, from configuration only. */
export function doorHostsOf(config: DoorHostsConfig): ReadonlySet<string> {
  const hosts = new Set<string>();
  if (config.publicUrl !== undefined && URL.canParse(config.publicUrl)) hosts.add(hostName(new URL(config.publicUrl).hostname));
  const bind = hostName(config.host);
  if (!WILDCARD_BINDS.has(bind)) hosts.add(bind);
  if (isLoopbackBind(bind) || WILDCARD_BINDS.has(bind)) for (const name of LOOPBACK_NAMES) hosts.add(name);
  if (config.allowedHosts !== undefined) {
    const parsed = parseAllowedHosts(config.allowedHosts);
    if ("hosts" in parsed) for (const name of parsed.hosts) hosts.add(name);
  }
  return hosts;
}

/** 403 as the doors speak: a JSON-RPC error (no id: the body was not read) whose data is our error body. */
function refusal(error: ApiError, context: RequestContext): Response {
  context.outcome = error.code;
  const body = { jsonrpc: "2.0", id: null, error: { code: -32000, message: error.message, data: error.toBody(context.id) } };
  const response = new Response(JSON.stringify(body), { status: 403, headers: { "content-type": "application/json; charset=utf-8", ...answerHeaders(context), vary: "Origin" } });
  // No CORS grant: a page elsewhere cannot even read the refusal.
  response.headers.delete("access-control-allow-origin");
  return response;
}

/** The answer with its request id and the CORS grant to `origin` alone (none when no Origin was sent): the server adds no `*`. */
function granted(response: Response, context: RequestContext, origin: string): Response {
  for (const [name, value] of Object.entries(answerHeaders(context))) response.headers.set(name, value);
  if (origin === "") response.headers.delete("access-control-allow-origin");
  else for (const [name, value] of Object.entries(originGrant(origin))) response.headers.set(name, value);
  return response;
}

export interface DoorGuard {
  /**
   * Checked before the door runs: the 403 refusal, or the Origin its answer may grant ("" when none was
   * sent). The door is then run by the caller (no callback: the door's room is not entered from here).
   */
  admit(request: Request, context: RequestContext): Response | string;
  /** The door's answer with its request id and the CORS grant to the admitted Origin alone (none when no Origin was sent). */
  grant(response: Response, context: RequestContext, origin: string): Response;
  /** The door's CORS preflight: the grant to an allowed Origin, 403 to any other. */
  preflight(request: Request): Response;
}

export function createDoorGuard(hosts: ReadonlySet<string>): DoorGuard {
  const named = [...hosts].join(", ");
  /** The refusal, or the Origin to grant ("" when none was sent). */
  const check = (request: Request, context: RequestContext): ApiError | string => {
    const host = URL.canParse(context.origin) ? hostName(new URL(context.origin).hostname) : "";
    if (!hosts.has(host)) {
      return new ApiError("HOST_NOT_ALLOWED", { message: `Host ${host.slice(0, 100) || "(none)"} is not served here: this door answers ${named} (--public-url, --host, --allowed-hosts).` });
    }
    const origin = request.headers.get("origin");
    if (origin === null) return "";
    const sent = URL.canParse(origin) ? new URL(origin) : undefined;
    if (sent === undefined || (sent.protocol !== "http:" && sent.protocol !== "https:") || !hosts.has(hostName(sent.hostname))) {
      return new ApiError("ORIGIN_NOT_ALLOWED", { message: `Origin ${origin.slice(0, 100)} may not use this door: it answers pages from ${named} and clients that send no Origin.` });
    }
    return sent.origin;
  };
  return {
    admit(request, context) {
      const checked = check(request, context);
      return checked instanceof ApiError ? refusal(checked, context) : checked;
    },
    grant: granted,
    preflight(request) {
      const context = contextOf(request);
      const checked = check(request, context);
      if (checked instanceof ApiError) return refusal(checked, context);
      return granted(preflightResponse({}), context, checked);
    },
  };
}
