/**
 * @module web/fetch/fetch-guard — the only way the web engine downloads anything: every hop vetted
 * (scheme, port, public address, robots.txt), redirects followed by hand, body capped while
 * streaming, connect and total timeouts.
 *
 * Room web/fetch/: everything that touches the network for a read (target guard, resolver, pinned connector, body reader, charset decoding, robots.txt, bot challenges). It knows no DOM and imports nothing else of web/.
 */
import { ApiError, type ErrorCode } from "../../errors.ts";
import { readBody } from "./body-reader.ts";
import type { Connector } from "./http-connector.ts";
import type { RobotsPolicy } from "./robots.ts";
import { vetTarget, vetUrl, type Resolver } from "./target-guard.ts";

/** spec web-evidence §8: redirects. */
export const MAX_REDIRECTS = 4;
/** Body kept from a non-2xx answer (enough to recognise a bot challenge page). */
const ERROR_BODY_MAX_BYTES = 64 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface GuardedFetcherOptions {
  userAgent: string;
  allowLoopbackTargets: boolean;
  resolver?: Resolver;
  connector: Connector;
  headersTimeoutMs: number;
  totalTimeoutMs: number;
  /** Extra headers identifying the fetcher to the site (Web Bot Auth signatures), made per hop for its URL. */
  signRequest?: (url: URL) => Promise<Record<string, string>>;
}

export interface GuardedFetchOptions {
  maxBytes: number;
  /** Error code when the body passes maxBytes (default SOURCE_TOO_LARGE). */
  tooLargeCode?: ErrorCode;
  /** Keep the first maxBytes instead of failing (robots.txt). */
  truncateAtMax?: boolean;
  /** Checked before every hop; omitted for robots.txt itself. */
  robots?: RobotsPolicy;
  accept?: string;
  signal: AbortSignal;
}

export interface FetchedResource {
  url: string;
  finalUrl: string;
  /** Status of the final answer (any status that is not a followed redirect). */
  status: number;
  headers: Record<string, string>;
  /** Decoded (content-encoding undone) body; for non-2xx at most 64 KiB, possibly empty. */
  bytes: Uint8Array;
}

export interface GuardedFetcher {
  fetch(url: string, options: GuardedFetchOptions): Promise<FetchedResource>;
}

export function createGuardedFetcher(options: GuardedFetcherOptions): GuardedFetcher {
  const policy = { resolver: options.resolver, allowLoopbackTargets: options.allowLoopbackTargets };

  async function fetchOnce(startUrl: string, fetchOptions: GuardedFetchOptions, signal: AbortSignal): Promise<FetchedResource> {
    let current = startUrl;
    for (let hop = 0; ; hop++) {
      const target = await vetTarget(current, policy);
      if (fetchOptions.robots) await fetchOptions.robots.assertAllowed(target.url, signal);
      const identity = options.signRequest ? await options.signRequest(target.url) : undefined;
      if (signal.aborted) throw new ApiError("SOURCE_TIMEOUT", { message: "The source did not answer in time." });
      const response = await options.connector({
        url: target.url,
        address: target.address,
        port: target.port,
        headers: {
          "user-agent": options.userAgent,
          accept: fetchOptions.accept ?? "*/*",
          "accept-encoding": "gzip, deflate, br",
          "accept-language": "en;q=1.0, *;q=0.5",
          connection: "close",
          ...identity,
        },
        headersTimeoutMs: options.headersTimeoutMs,
        signal,
      });
      // Closing the socket on abort unblocks a body read that is waiting for bytes that never come.
      const closeOnAbort = () => response.close();
      signal.addEventListener("abort", closeOnAbort, { once: true });
      try {
        const location = response.headers.location;
        if (REDIRECT_STATUSES.has(response.status) && location) {
          if (hop >= MAX_REDIRECTS) {
            throw new ApiError("TOO_MANY_REDIRECTS", { message: `The source redirected more than ${MAX_REDIRECTS} times.` });
          }
          // Check the raw Location before URL normalisation turns numeric spellings (http://134744072/) into dotted ones.
          const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(location)
            ? location
            : /^[\\/]{2}/.test(location)
              ? `${target.url.protocol}${location}`
              : undefined;
          if (absolute !== undefined) vetUrl(absolute, { allowLoopbackTargets: options.allowLoopbackTargets });
          let next: URL;
          try {
            next = new URL(location, target.url);
          } catch {
            throw new ApiError("SOURCE_UNREACHABLE", { message: "The source redirected to an invalid URL." });
          }
          next.hash = "";
          current = next.href;
          continue;
        }
        const ok = response.status >= 200 && response.status < 300;
        const bytes = await readBody(response.body, {
          contentEncoding: response.headers["content-encoding"],
          maxBytes: ok ? fetchOptions.maxBytes : ERROR_BODY_MAX_BYTES,
          tooLargeCode: fetchOptions.tooLargeCode ?? "SOURCE_TOO_LARGE",
          truncateAtMax: !ok || fetchOptions.truncateAtMax === true,
          signal,
        });
        return { url: startUrl, finalUrl: target.url.href, status: response.status, headers: response.headers, bytes };
      } finally {
        signal.removeEventListener("abort", closeOnAbort);
        response.close();
      }
    }
  }

  return {
    async fetch(url, fetchOptions) {
      const timeout = AbortSignal.timeout(options.totalTimeoutMs);
      const signal = AbortSignal.any([fetchOptions.signal, timeout]);
      try {
        return await fetchOnce(url, fetchOptions, signal);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (signal.aborted) throw new ApiError("SOURCE_TIMEOUT", { message: "The source did not answer in time.", cause: error });
        throw new ApiError("SOURCE_UNREACHABLE", { cause: error });
      }
    },
  };
}
