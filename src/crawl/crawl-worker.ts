/**
 * @module crawl/crawl-worker — one instance's share of every running crawl: lanes that claim a URL
 * from the store (under a lease), read it with web/read's engine (same guard, robots.txt, caps),
 * sign the result as a paid read's, deliver it, and add the page's links to the frontier. A URL
 * whose instance dies mid-fetch is claimed again by any instance once its lease lapses.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { toApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { WebEngine } from "../web/engine.ts";
import { readOptions } from "../web/endpoints.ts";
import { noteRead } from "../web/evidence-facts.ts";
import type { InlineError } from "../web/read-result.ts";
import { linkRulesOf, linksToFollow, type LinkRules } from "./crawl-links.ts";
import { createPoliteness, retryDelayMs } from "./crawl-politeness.ts";
import type { ClaimedUrl, CrawlPayment, CrawlRow, CrawlStore, FrontierEntry, NewLinks } from "./crawl-store.ts";
import { mapSite } from "./site-map.ts";

/** What the worker tells the webhook sender (crawl-webhook.ts); never awaited by a lane. */
export interface CrawlEvents {
  page(crawl: CrawlRow, page: { readonly seq: number; readonly result: unknown }): void;
  ended(crawl: CrawlRow): void;
}

export interface CrawlWorkerOptions {
  /** URLs this instance fetches at once, all crawls together. */
  readonly lanes: number;
  readonly perHost: number;
  /** Pause between two fetches from one host (robots.txt's Crawl-delay when longer). */
  readonly hostDelayMs: number;
  readonly leaseMs: number;
  /** How long an idle lane waits before asking the store again. */
  readonly idleMs?: number;
  readonly allowLoopbackTargets?: boolean;
  /** Tries of a URL that answers 429/503 or times out before it is delivered as an error. */
  readonly maxAttempts?: number;
  readonly workerId?: string;
}

export interface CrawlWorkerDeps {
  readonly store: CrawlStore;
  readonly web: WebEngine;
  readonly log: Logger;
  readonly now: () => Date;
  /** Signs a read result as a paid web/read's (absent: delivered unsigned, benchmarks only). */
  readonly seal?: (result: object, payment: CrawlPayment | null) => Promise<unknown>;
  readonly events?: CrawlEvents;
  readonly options: CrawlWorkerOptions;
}

export interface CrawlWorker {
  readonly id: string;
  start(): void;
  /** Lanes stop claiming; fetches in flight are aborted and their URLs handed back. */
  stop(): void;
  /** A crawl became claimable: idle lanes ask at once. */
  wake(): void;
  /** Resolves when every lane has stopped. */
  stopped(): Promise<void>;
}

const READ_TIMEOUT_MS = 60_000;
const RETRY_CODES = new Set(["SOURCE_TIMEOUT", "SOURCE_UNREACHABLE"]);

/** How many URLs a crawl may know at most: enough to choose from, bounded so a hostile site cannot fill the database. */
export const frontierCap = (limit: number) => Math.min(200_000, Math.max(1_000, limit * 20));

interface CrawlPlan {
  readonly row: CrawlRow;
  readonly rules: LinkRules;
}

export function createCrawlWorker(deps: CrawlWorkerDeps): CrawlWorker {
  const { store, web, log, options } = deps;
  const id = options.workerId ?? `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
  const nowMs = () => deps.now().getTime();
  const politeness = createPoliteness(options.perHost, nowMs);
  const idleMs = options.idleMs ?? 500;
  const maxAttempts = options.maxAttempts ?? 3;
  const stopping = new AbortController();
  const plans = new Map<string, CrawlPlan>();
  let wakeIdle: (() => void)[] = [];
  let lanes: Promise<void>[] = [];
  let renewTimer: ReturnType<typeof setInterval> | undefined;

  // The request and payment of a crawl never change once it runs: read once per crawl (bounded).
  async function planOf(crawlId: string): Promise<CrawlPlan | undefined> {
    const known = plans.get(crawlId);
    if (known) return known;
    const row = await store.get(crawlId);
    if (!row) return undefined;
    const plan = { row, rules: linkRulesOf(row.request) };
    if (plans.size >= 1000) plans.delete(plans.keys().next().value!);
    plans.set(crawlId, plan);
    return plan;
  }

  /** The links robots.txt lets the crawl follow, and how many it refused. */
  async function allowedLinks(limit: number, entries: readonly FrontierEntry[], signal: AbortSignal): Promise<NewLinks> {
    const allowed: FrontierEntry[] = [];
    let robotsBlocked = 0;
    for (const entry of entries) {
      // Only an unreachable origin makes this throw: its fetch will then fail on its own.
      const ok = await web.allowedByRobots(entry.url, signal).catch(() => true);
      if (ok) allowed.push(entry);
      else robotsBlocked++;
    }
    return { entries: allowed, robotsBlocked, cap: frontierCap(limit) };
  }

  async function readSitemaps(claimed: ClaimedUrl, plan: CrawlPlan, signal: AbortSignal): Promise<void> {
    const request = plan.row.request;
    const mapped = await mapSite(
      { url: request.url, sitemap: "only", limit: frontierCap(plan.row.limit), ...(request.include ? { include: request.include } : {}), ...(request.exclude ? { exclude: request.exclude } : {}) },
      { web, signal },
    ).catch((error: unknown) => {
      log.info("crawl: no sitemap URL", { crawl_id: claimed.crawlId, error: toApiError(error).code });
      return undefined;
    });
    const entries = (mapped?.urls ?? []).map((u) => ({ url: u.url, depth: 1 }));
    await store.enqueue(claimed.crawlId, entries, { robotsBlocked: mapped?.robots_excluded ?? 0, cap: frontierCap(plan.row.limit), nowMs: nowMs() });
    await store.deliver(claimed, id, { kind: "done" });
  }

  async function readPage(claimed: ClaimedUrl, plan: CrawlPlan, signal: AbortSignal): Promise<void> {
    const request = plan.row.request;
    const delayMs = Math.max(options.hostDelayMs, (await web.crawlDelayMs?.(claimed.url, signal).catch(() => 0)) ?? 0);
    const free = await politeness.enter(claimed.url, delayMs, signal);
    let html: string | undefined;
    let outcome;
    try {
      const read = await web.read(
        {
          ...readOptions(request, "text"),
          url: claimed.url,
          onSource: (source) => {
            if ((source.headers["content-type"] ?? "").toLowerCase().includes("html")) html = new TextDecoder().decode(source.bytes);
          },
        },
        AbortSignal.any([signal, AbortSignal.timeout(READ_TIMEOUT_MS)]),
      );
      // The links enter the frontier with the page, in one transaction: the crawl is never seen out of URLs in between.
      const links = html !== undefined && request.sitemap !== "only" ? await allowedLinks(plan.row.limit, linksToFollow(html, read.final_url, claimed.depth, plan.rules), signal) : undefined;
      const signed = deps.seal ? await deps.seal(noteRead(read, read), plan.row.payment) : read;
      outcome = await store.deliver(claimed, id, { kind: "page", result: JSON.stringify(signed), textSha256: read.text_sha256, ...(links ? { links } : {}) });
      if (outcome.kind === "delivered") deps.events?.page(plan.row, { seq: outcome.pageSeq, result: signed });
    } catch (error) {
      if (stopping.signal.aborted) throw error;
      const e = toApiError(error);
      const sourceStatus = (e.details as { source_status?: number } | undefined)?.source_status;
      if ((sourceStatus === 429 || sourceStatus === 503 || RETRY_CODES.has(e.code)) && claimed.attempts < maxAttempts) {
        const waitMs = retryDelayMs((e.details as { retry_after?: unknown } | undefined)?.retry_after, claimed.attempts, nowMs());
        politeness.holdHost(claimed.url, nowMs() + waitMs);
        await store.deliver(claimed, id, { kind: "retry", notBeforeMs: nowMs() + waitMs });
        return;
      }
      if (e.code === "ROBOTS_DISALLOWED") {
        await store.deliver(claimed, id, { kind: "robots" });
        return;
      }
      const inline: InlineError = { ok: false, url: claimed.url, error: e.code, status: e.status, message: e.message };
      outcome = await store.deliver(claimed, id, { kind: "error", result: JSON.stringify(inline) });
      if (outcome.kind === "delivered") deps.events?.page(plan.row, { seq: outcome.pageSeq, result: inline });
    } finally {
      free();
    }
  }

  async function finishCrawls(crawlId?: string): Promise<void> {
    for (const row of await store.finish(nowMs(), crawlId)) {
      plans.delete(row.id);
      deps.events?.ended(row);
    }
  }

  async function work(claimed: ClaimedUrl): Promise<void> {
    const plan = await planOf(claimed.crawlId);
    if (!plan) return;
    try {
      if (claimed.kind === "sitemaps") await readSitemaps(claimed, plan, stopping.signal);
      else await readPage(claimed, plan, stopping.signal);
    } catch (error) {
      // Stopping: the URL goes back at once rather than waiting for its lease to lapse.
      if (stopping.signal.aborted) await store.deliver(claimed, id, { kind: "retry", notBeforeMs: 0 }).catch(() => undefined);
      else log.warn("crawl: a URL could not be recorded", { crawl_id: claimed.crawlId, url: claimed.url, error: (error as Error).message });
    }
  }

  async function lane(): Promise<void> {
    let lastSweep = 0;
    while (!stopping.signal.aborted) {
      let claimed: ClaimedUrl | undefined;
      try {
        claimed = await store.claim(id, options.leaseMs, nowMs());
        if (claimed) await work(claimed);
        else if (nowMs() - lastSweep > idleMs / 2) {
          // Nothing to claim: some crawl may have run out of URLs (here or on another instance), or past its deadline.
          lastSweep = nowMs();
          await finishCrawls();
        }
      } catch (error) {
        if (stopping.signal.aborted) return;
        log.warn("crawl: lane error", { error: (error as Error).message });
      }
      if (!claimed && !stopping.signal.aborted) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, idleMs);
          wakeIdle.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
  }

  return {
    id,
    start() {
      if (lanes.length > 0) return;
      lanes = Array.from({ length: options.lanes }, () => lane());
      renewTimer = setInterval(() => void store.renew(id, nowMs() + options.leaseMs).catch(() => undefined), Math.max(500, options.leaseMs / 3));
      renewTimer.unref?.();
    },
    stop() {
      stopping.abort(new Error("crawl worker stopping"));
      if (renewTimer) clearInterval(renewTimer);
      this.wake();
    },
    wake() {
      const waiting = wakeIdle;
      wakeIdle = [];
      for (const wake of waiting) wake();
    },
    async stopped() {
      await Promise.all(lanes);
    },
  };
}
