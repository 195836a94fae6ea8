/**
 * @module web/http-connector — opens one HTTP(S) exchange to an already-vetted IPv4 address.
 *
 * node:http(s) with a `lookup` that returns the vetted address: the socket goes to that address
 * while TLS still sends SNI for, and verifies the certificate against, the URL's host name
 * (measured on Bun 1.4.5: `lookup` is honoured by http and https, and a certificate for another
 * name fails with ERR_TLS_CERT_ALTNAME_INVALID). No second DNS query happens, so a rebinding
 * answer has no window. Tests inject a recording connector to prove no connection was attempted.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { ApiError } from "../errors.ts";

export interface ConnectRequest {
  url: URL;
  /** The vetted IPv4 address; the only address the socket may go to. */
  address: string;
  port: number;
  headers: Record<string, string>;
  connectTimeoutMs: number;
  signal: AbortSignal;
}

export interface SourceResponse {
  status: number;
  /** Lowercase header names; repeated headers joined with ", " (set-cookie is not needed). */
  headers: Record<string, string>;
  /** Raw (still content-encoded) body bytes. */
  body: AsyncIterable<Uint8Array>;
  /** Stops the transfer and frees the socket. */
  close(): void;
}

export type Connector = (request: ConnectRequest) => Promise<SourceResponse>;

export interface NodeConnectorOptions {
  /** Extra trusted CA certificates (PEM), e.g. a test CA. The system store is used otherwise. */
  ca?: string | string[];
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET", "EPIPE", "EAI_AGAIN"]);

function describeFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && (code.startsWith("ERR_TLS") || code.includes("CERT") || code.includes("SSL"))) {
    return "its TLS certificate could not be verified";
  }
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return `the connection failed (${code})`;
  return "the connection failed";
}

/** A connector over node:http / node:https that pins every connection to the vetted address. */
export function createNodeConnector(options: NodeConnectorOptions = {}): Connector {
  return (request) =>
    new Promise<SourceResponse>((resolve, reject) => {
      const { url, address } = request;
      const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
        if ((lookupOptions as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family: 4 }]);
        } else {
          callback(null, address, 4);
        }
      };
      const isHttps = url.protocol === "https:";
      const common = {
        host: url.hostname,
        port: request.port,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: request.headers,
        lookup: pinnedLookup,
        family: 4,
        agent: false as const,
      };
      let settled = false;
      let connectTimer: ReturnType<typeof setTimeout> | undefined;
      const fail = (error: ApiError) => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        request.signal.removeEventListener("abort", onAbort);
        req.destroy();
        reject(error);
      };
      const onAbort = () => fail(new ApiError("SOURCE_TIMEOUT", { message: "The source did not answer in time.", cause: request.signal.reason }));
      const req = isHttps
        ? https.request({ ...common, servername: url.hostname, ...(options.ca ? { ca: options.ca } : {}) })
        : http.request(common);
      connectTimer = setTimeout(
        () => fail(new ApiError("SOURCE_TIMEOUT", { message: "Connecting to the source timed out." })),
        request.connectTimeoutMs,
      );
      req.on("socket", (socket) => {
        socket.once(isHttps ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
      });
      req.on("error", (error) =>
        fail(new ApiError("SOURCE_UNREACHABLE", { message: `The source could not be reached: ${describeFailure(error)}.`, cause: error })),
      );
      req.on("response", (res) => {
        if (settled) {
          res.destroy();
          return;
        }
        settled = true;
        clearTimeout(connectTimer);
        request.signal.removeEventListener("abort", onAbort);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
        }
        resolve({
          status: res.statusCode ?? 0,
          headers,
          body: res,
          close: () => {
            res.destroy();
            req.destroy();
          },
        });
      });
      if (request.signal.aborted) {
        onAbort();
        return;
      }
      request.signal.addEventListener("abort", onAbort, { once: true });
      req.end();
    });
}
