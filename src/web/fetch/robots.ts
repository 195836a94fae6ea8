/**
 * @module web/fetch/robots — robots.txt policy with RFC 9309 semantics, cached per origin.
 *
 * 2xx: parsed (first 500 KiB); 4xx (and "unavailable", e.g. too many redirects): everything
 * allowed; 5xx or a robots.txt on a refused address: everything refused (ROBOTS_DISALLOWED);
 * unreachable or timed out: nothing fetched, and the caller gets that network error (502/504).
 */
import { ApiError } from "../../errors.ts";
import { compileRobotsFile, type RobotsMatcher } from "./robots-rules.ts";

export type { RobotsMatcher } from "./robots-rules.ts";

export interface RobotsFile {
  status: number;
  body: string;
}

/** Fetches `<origin>/robots.txt` (through the guarded fetcher); throws ApiError when it cannot. */
export type RobotsLoader = (robotsUrl: string, signal: AbortSignal) => Promise<RobotsFile>;

export interface RobotsPolicyOptions {
  /** The product token matched against `User-agent:` lines (e.g. "Tollbooth"). */
  agent: string;
  load: RobotsLoader;
  /** How long a parsed or 4xx answer is reused. Default 1 hour (RFC 9309 allows up to 24 h). */
  ttlMs?: number;
  /** How long a 5xx/unreachable answer (everything refused) is reused. Default 1 minute. */
  failureTtlMs?: number;
  /** Time allowed to fetch one robots.txt; the load is shared by concurrent callers, so it has its own clock. Default 10 s. */
  loadTimeoutMs?: number;
  /** Origins kept in the cache at most (oldest dropped first). Default 1000. */
  maxOrigins?: number;
  now?: () => number;
}

type Verdict =
  | { kind: "rules"; isAllowed: RobotsMatcher; crawlDelaySec: number | undefined }
  | { kind: "allow-all" }
  | { kind: "deny-all"; reason: string }
  /** The origin itself is unreachable: the page could not be fetched either, so the caller sees why (502/504), not a denial. */
  | { kind: "unreachable"; error: ApiError };

/** Network failures reported as themselves; the page is not fetched in either case (RFC 9309 §2.3.1.4). */
const NETWORK_FAILURES = new Set(["SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "DNS_FAILED"]);

interface Entry {
  expiresAt: number;
  verdict: Promise<Verdict>;
}

export interface RobotsPolicy {
  /** Throws ApiError ROBOTS_DISALLOWED when robots.txt of the URL's origin refuses it. */
  assertAllowed(url: URL, signal: AbortSignal): Promise<void>;
  /**
   * robots.txt of one origin as a synchronous test of a path with its query (many URLs of one site
   * checked at once, as web/map does); throws only when the origin is unreachable.
   */
  matcherFor(origin: string, signal: AbortSignal): Promise<RobotsMatcher>;
  /** The Crawl-delay of the group that applies to our agent, in ms (0: none, or robots.txt not read). */
  crawlDelayMs(url: URL, signal: AbortSignal): Promise<number>;
}

/** RFC 9309 §2.5: parse at least the first 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

export function createRobotsPolicy(options: RobotsPolicyOptions): RobotsPolicy {
  const ttlMs = options.ttlMs ?? 60 * 60 * 1000;
  const failureTtlMs = options.failureTtlMs ?? 60 * 1000;
  const maxOrigins = options.maxOrigins ?? 1000;
  const now = options.now ?? Date.now;
  const loadTimeoutMs = options.loadTimeoutMs ?? 10_000;
  const cache = new Map<string, Entry>();

  async function loadVerdict(origin: string): Promise<Verdict> {
    const robotsUrl = `${origin}/robots.txt`;
    let file: RobotsFile;
    try {
      file = await options.load(robotsUrl, AbortSignal.timeout(loadTimeoutMs));
    } catch (error) {
      // RFC 9309 §2.3.1.3: too many redirects means "unavailable", which is treated like 4xx.
      if (error instanceof ApiError && error.code === "TOO_MANY_REDIRECTS") return { kind: "allow-all" };
      if (error instanceof ApiError && NETWORK_FAILURES.has(error.code)) return { kind: "unreachable", error };
      const reason = error instanceof ApiError ? error.message : "robots.txt could not be fetched";
      return { kind: "deny-all", reason: `robots.txt is unreachable (${reason})` };
    }
    if (file.status >= 200 && file.status < 300) {
      return { kind: "rules", ...compileRobotsFile(file.body, options.agent) };
    }
    if (file.status >= 400 && file.status < 500) return { kind: "allow-all" };
    return { kind: "deny-all", reason: `robots.txt answered with status ${file.status}` };
  }

  function remember(origin: string, entry: Entry): void {
    cache.delete(origin);
    cache.set(origin, entry);
    while (cache.size > maxOrigins) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
  }

  async function getVerdict(origin: string, signal: AbortSignal): Promise<Verdict> {
    const cached = cache.get(origin);
    if (cached && cached.expiresAt > now()) return cached.verdict;
    const entry: Entry = { expiresAt: now() + ttlMs, verdict: loadVerdict(origin) };
    void entry.verdict.then((v) => {
      if (v.kind === "deny-all" || v.kind === "unreachable") entry.expiresAt = Math.min(entry.expiresAt, now() + failureTtlMs);
    });
    remember(origin, entry);
    return raceAbort(entry.verdict, signal);
  }

  return {
    async matcherFor(origin, signal) {
      const verdict = await getVerdict(origin, signal);
      if (verdict.kind === "unreachable") throw verdict.error;
      if (verdict.kind === "rules") return (path) => path === "/robots.txt" || verdict.isAllowed(path);
      const allowed = verdict.kind === "allow-all";
      return (path) => allowed || path === "/robots.txt";
    },

    async crawlDelayMs(url, signal) {
      const verdict = await getVerdict(url.origin, signal).catch(() => undefined);
      const seconds = verdict?.kind === "rules" ? verdict.crawlDelaySec : undefined;
      // Bounded: a robots.txt asking for an hour between pages would stall a crawl past its deadline anyway.
      return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 60) * 1000 : 0;
    },
    async assertAllowed(url, signal) {
      if (url.pathname === "/robots.txt") return;
      const verdict = await getVerdict(url.origin, signal);
      if (verdict.kind === "allow-all") return;
      if (verdict.kind === "unreachable") throw verdict.error;
      if (verdict.kind === "deny-all") {
        throw new ApiError("ROBOTS_DISALLOWED", { message: `Not fetched: ${verdict.reason}, so the site is treated as disallowing crawlers (RFC 9309).` });
      }
      if (!verdict.isAllowed(url.pathname + url.search)) {
        throw new ApiError("ROBOTS_DISALLOWED", { message: `robots.txt of ${url.origin} does not allow ${url.pathname} for our user agent.` });
      }
    },
  };
}

/** The product token of a User-Agent string ("Tollbooth/0.1 (+https://…)" → "Tollbooth"). */
export function readProductToken(userAgent: string): string {
  return /^[A-Za-z0-9_-]+/.exec(userAgent.trim())?.[0] ?? "*";
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new ApiError("SOURCE_TIMEOUT", { message: "The source did not answer in time." }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ApiError("SOURCE_TIMEOUT", { message: "The source did not answer in time." }));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
