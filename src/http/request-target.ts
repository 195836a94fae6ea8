/**
 * @module http/request-target — what a request asks for, read defensively before anything else
 * sees it: the path and query from the request line, and the origin from a Host header that must
 * be a plain host[:port]. Requests are routed on one fixed internal origin (Elysia finds the path
 * by assuming an origin at least 11 characters long, so `Host: app` would 404 everywhere); the
 * caller's own origin is kept apart for the public URLs of a server without --public-url.
 */
import { ApiError } from "../errors.ts";

/** The origin every request is routed on; never shown to callers. */
export const ROUTING_ORIGIN = "http://tollbooth.internal";

export interface RequestTarget {
  /** Path and query as sent (starts with "/"). */
  readonly pathAndQuery: string;
  /** The path alone, for logs. */
  readonly path: string;
  /** `http://<host[:port]>` from the Host header, lowercased. */
  readonly origin: string;
}

const label = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
const hostPattern = new RegExp(`^(?:${label}(?:\\.${label})*\\.?|\\[[0-9A-Fa-f:.]{2,45}\\])(?::(\\d{1,5}))?$`);

/** The host[:port] of a Host header, or undefined when it is not one (spaces, `%`, a port above 65535, empty...). */
export function validHost(value: string | null): string | undefined {
  if (value === null) return undefined;
  const match = hostPattern.exec(value);
  if (!match) return undefined;
  if (match[1] !== undefined && Number(match[1]) > 65535) return undefined;
  return value.toLowerCase();
}

/** The path (with query) of a request URL, and the authority of an absolute one; no path for authority-form (CONNECT) and `*`. */
function split(url: string): { path?: string; authority?: string } {
  if (url.startsWith("/")) return { path: url };
  // What the server hands us: http://authority/path…
  if (url.startsWith("http://")) {
    const slash = url.indexOf("/", 7);
    if (slash !== -1 && !/[?#]/.test(url.slice(7, slash))) return { path: url.slice(slash), authority: url.slice(7, slash) };
  }
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(url);
  if (!absolute) return {};
  const rest = url.slice(absolute[0].length);
  return { path: rest.startsWith("/") ? rest : `/${rest}`, authority: absolute[1] };
}

/** The last request's `http://authority` and Host header and the origin they gave: nearly every request repeats them. */
let lastAuthority: { readonly prefix: string; readonly hostHeader: string | null; readonly origin: string } | undefined;

/**
 * Reads the request's target or throws a 400 (INVALID_HOST, or INVALID_REQUEST for a path that cannot
 * be decoded). `hostHeader` undefined: the URL's authority is the Host header as sent (the runtime
 * builds the URL from it; runtime/serve.ts `urlCarriesHost`), and a URL without one had no usable Host.
 */
export function readRequestTarget(url: string, hostHeader: string | null | undefined): RequestTarget {
  const last = lastAuthority;
  if (last !== undefined && (hostHeader === undefined || hostHeader === last.hostHeader) && url.startsWith(last.prefix) && url.charCodeAt(last.prefix.length) === 47 /* "/" */) {
    return targetOf(url.slice(last.prefix.length), last.origin);
  }
  const { path: pathAndQuery, authority } = split(url);
  // A Request made in-process carries its host in the URL only; one off the wire has a Host header.
  const hostSent = hostHeader === undefined ? (authority ?? null) : (hostHeader ?? authority ?? null);
  if (pathAndQuery === undefined) throw new ApiError("INVALID_HOST", { message: "The request target must be a path (CONNECT and other authority-form requests are not served)." });
  const host = validHost(hostSent);
  if (host === undefined) {
    throw new ApiError("INVALID_HOST", { message: hostSent === null ? "The request has no Host header (HTTP/1.1 requires one)." : "The Host header is not a valid host[:port]." });
  }
  const origin = `http://${host}`;
  if (authority !== undefined && url.startsWith(`http://${authority}/`)) lastAuthority = { prefix: `http://${authority}`, hostHeader: hostHeader ?? null, origin };
  return targetOf(pathAndQuery, origin);
}

function targetOf(pathAndQuery: string, origin: string): RequestTarget {
  const query = pathAndQuery.indexOf("?");
  const fragment = pathAndQuery.indexOf("#");
  const queryAt = fragment === -1 || (query !== -1 && query < fragment) ? query : fragment;
  const path = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
  try {
    if (path.includes("%")) decodeURIComponent(path);
  } catch {
    throw new ApiError("INVALID_REQUEST", { message: "The request path holds a malformed percent escape." });
  }
  return { pathAndQuery, path, origin };
}
