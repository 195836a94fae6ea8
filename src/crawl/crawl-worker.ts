/**
 * @module crawl/crawl-worker — one instance's share of every running crawl: URLs claimed from the
 * store in batches (under a lease), read by up to `lanes` at once with web/read's engine (same guard,
 * robots.txt, caps; the page's links as the extractor parsed them), signed as a paid read's, and
 * delivered in batches with the links they add to the frontier. A URL whose instance dies mid-fetch
 * (or before its batch was delivered) is claimed again by any instance once its lease lapses.
 *
 * One loop drives it: it claims while lanes are free, waits for a lane or a delivery while pages are
 * in flight, and when nothing is claimable sleeps: `idleMs` while some crawl runs (another instance
 * may add URLs), else woken at once by `wake` (a crawl released on this instance) or by a timer that
 * grows from `idleMs` to `maxIdleMs` while no crawl runs (one released on another instance).
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
import type { ClaimDelivery, ClaimedUrl, CrawlPayment, CrawlRow, CrawlStore, FrontierEntry, NewLinks } from "./crawl-store.ts";
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
  /** How long the worker sleeps when nothing is claimable while some crawl runs, and first when none does (default 500 ms)... */
  readonly idleMs?: number;
  /** ...doubling while none does, up to this (default 5 s); `wake` ends a sleep at once. */
  readonly maxIdleMs?: number;
  /**
   * Deliveries recorded in one transaction at most (default: 4 × lanes, 32 to 128; a delivery waits
   * 20 ms at most for its batch). URLs are claimed 2 × lanes at a time at most, up to 2 × lanes ahead
   * of the lanes: more would leave other instances idle on a crawl whose frontier is thin. On SQLite,
   * 2,000 pages, 4 lanes, one process (scripts/bench/crawl.ts): a crawled page (read, signed, claimed,
   * delivered) cost 0.61 ms of CPU claimed and delivered 8 at a time, 0.53 with both by 32, 0.55-0.60
   * with claims by 8 and deliveries by 32; web/read's read and signing 0.52-0.57 in the same runs.
   */
  readonly batch?: number;
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
  /** Stops claiming; pages read are delivered, fetches in flight aborted and their URLs (and those not started) handed back. */
  stop(): void;
  /** A crawl became claimable: a sleeping worker asks at once. */
  wake(): void;
  /** Resolves when the worker has stopped and handed back what it held. */
  stopped(): Promise<void>;
}

const READ_TIMEOUT_MS = 60_000;
const RETRY_CODES = new Set(["SOURCE_TIMEOUT", "SOURCE_UNREACHABLE"]);
/** How often a busy worker still ends the crawls past their deadline or out of URLs (an idle one does at each wake). */
const BUSY_SWEEP_MS = 5_000;
/** The longest a page read waits for its batch to fill before it is delivered. */
const DELIVERY_WAIT_MS = 20;

/** How many URLs a crawl may know at most: enough to choose from, bounded so a hostile site cannot fill the database. */
export const frontierCap = (limit: number) => Math.min(200_000, Math.max(1_000, limit * 20));

interface CrawlPlan {
  readonly row: CrawlRow;
  readonly rules: LinkRules;
}

/** A URL's outcome waiting for its batch, with what the webhook is told once it is delivered. */
interface Outgoing extends ClaimDelivery {
  readonly plan?: CrawlPlan;
  readonly result?: unknown;
}

export function createCrawlWorker(deps: CrawlWorkerDeps): CrawlWorker {
  const { store, web, log, options } = deps;
  const id = options.workerId ?? `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
  const nowMs = () => deps.now().getTime();
  const politeness = createPoliteness(options.perHost, nowMs);
  const idleMs = options.idleMs ?? 500;
  const maxIdleMs = Math.max(idleMs, options.maxIdleMs ?? 5_000);
  const batch = Math.max(1, options.batch ?? Math.min(128, Math.max(32, 4 * options.lanes)));
  const maxAttempts = options.maxAttempts ?? 3;
  const stopping = new AbortController();
  const plans = new Map<string, CrawlPlan>();
  /** Claimed, not started. */
  const queue: ClaimedUrl[] = [];
  /** Read (or given up), waiting to be delivered. */
  let outbox: Outgoing[] = [];
  let inFlight = 0;
  let delivering: Promise<void> | undefined;
  let deliveryTimer: ReturnType<typeof setTimeout> | undefined;
  let signal: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let renewTimer: ReturnType<typeof setInterval> | undefined;
  /** The next idle sleep: `idleMs`, doubled each time nothing was claimable, up to `maxIdleMs`. */
  let sleepMs = idleMs;

  /** Set by a nudge while the loop was not waiting: its next wait ends at once. */
  let nudged = false;
  /** Ends the loop's current wait, or its next one (a lane finished, a batch was delivered, a wake). */
  const nudge = () => {
    const resolve = signal;
    signal = undefined;
    if (resolve) resolve();
    else nudged = true;
  };
  const waitForNudge = (ms: number) =>
    new Promise<void>((resolve) => {
      if (nudged) {
        nudged = false;
        return resolve();
      }
      const timer = ms === Infinity ? undefined : setTimeout(() => nudge(), ms);
      signal = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });

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

  async function readSitemaps(claimed: ClaimedUrl, plan: CrawlPlan, signal: AbortSignal): Promise<Outgoing> {
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
    return { claimed, delivery: { kind: "done" } };
  }

  async function readPage(claimed: ClaimedUrl, plan: CrawlPlan, signal: AbortSignal): Promise<Outgoing> {
    const request = plan.row.request;
    const delayMs = Math.max(options.hostDelayMs, (await web.crawlDelayMs?.(claimed.url, signal).catch(() => 0)) ?? 0);
    const free = await politeness.enter(claimed.url, delayMs, signal);
    try {
      let found: readonly string[] | undefined;
      const read = await web.read(
        { ...readOptions(request, "text"), url: claimed.url, ...(request.sitemap === "only" ? {} : { onPageLinks: (links) => (found = links) }) },
        AbortSignal.any([signal, AbortSignal.timeout(READ_TIMEOUT_MS)]),
      );
      // The links enter the frontier with the page, in one transaction: the crawl is never seen out of URLs in between.
      const links = found ? await allowedLinks(plan.row.limit, linksToFollow(found, claimed.depth, plan.rules), signal) : undefined;
      const signed = deps.seal ? await deps.seal(noteRead(read, read), plan.row.payment) : read;
      return { claimed, plan, result: signed, delivery: { kind: "page", result: JSON.stringify(signed), textSha256: read.text_sha256, ...(links ? { links } : {}) } };
    } catch (error) {
      if (stopping.signal.aborted) throw error;
      const e = toApiError(error);
      const sourceStatus = (e.details as { source_status?: number } | undefined)?.source_status;
      if ((sourceStatus === 429 || sourceStatus === 503 || RETRY_CODES.has(e.code)) && claimed.attempts < maxAttempts) {
        const waitMs = retryDelayMs((e.details as { retry_after?: unknown } | undefined)?.retry_after, claimed.attempts, nowMs());
        politeness.holdHost(claimed.url, nowMs() + waitMs);
        return { claimed, delivery: { kind: "retry", notBeforeMs: nowMs() + waitMs } };
      }
      if (e.code === "ROBOTS_DISALLOWED") return { claimed, delivery: { kind: "robots" } };
      const inline: InlineError = { ok: false, url: claimed.url, error: e.code, status: e.status, message: e.message };
      return { claimed, plan, result: inline, delivery: { kind: "error", result: JSON.stringify(inline) } };
    } finally {
      free();
    }
  }

  async function finishCrawls(): Promise<void> {
    for (const row of await store.finish(nowMs())) {
      plans.delete(row.id);
      deps.events?.ended(row);
    }
  }

  /** Delivers the outbox in one transaction (one batch at a time); the webhook hears each page delivered. */
  function deliver(): Promise<void> {
    if (deliveryTimer) clearTimeout(deliveryTimer);
    deliveryTimer = undefined;
    if (delivering || outbox.length === 0) return delivering ?? Promise.resolve();
    const sent = outbox;
    outbox = [];
    delivering = (async () => {
      const outcomes = await store.deliver(id, sent).catch(async (error: Error) => {
        log.warn("crawl: a batch of URLs could not be recorded; they are handed back", { urls: sent.length, error: error.message });
        // Handed back rather than left leased: this instance renews its leases, so they would never lapse.
        await store.deliver(id, sent.map((o) => ({ claimed: o.claimed, delivery: { kind: "retry", notBeforeMs: nowMs() + 1_000 } }))).catch(() => undefined);
        return [];
      });
      outcomes.forEach((outcome, i) => {
        const { plan, result } = sent[i]!;
        if (outcome.kind === "delivered" && plan) deps.events?.page(plan.row, { seq: outcome.pageSeq, result });
      });
    })().finally(() => {
      delivering = undefined;
      nudge();
      // What arrived meanwhile goes with the next batch.
      scheduleDelivery();
    });
    return delivering;
  }

  /** The outbox is delivered once it holds a batch, once no claimed URL waits for a lane, or once it waited long enough. */
  function scheduleDelivery(): void {
    if (outbox.length === 0) return;
    // No URL waiting: the lanes may soon need these pages' links (a thin frontier), so they go at once.
    if (outbox.length >= batch || queue.length === 0) void deliver();
    else deliveryTimer ??= setTimeout(() => void deliver(), DELIVERY_WAIT_MS);
  }

  function begin(claimed: ClaimedUrl): void {
    inFlight++;
    void (async () => {
      let out: Outgoing | undefined;
      try {
        const plan = await planOf(claimed.crawlId);
        if (plan) out = claimed.kind === "sitemaps" ? await readSitemaps(claimed, plan, stopping.signal) : await readPage(claimed, plan, stopping.signal);
      } catch (error) {
        // Stopping: the URL goes back at once rather than waiting for its lease to lapse.
        if (stopping.signal.aborted) out = { claimed, delivery: { kind: "retry", notBeforeMs: 0 } };
        else log.warn("crawl: a URL could not be read", { crawl_id: claimed.crawlId, url: claimed.url, error: (error as Error).message });
      } finally {
        inFlight--;
        if (out) outbox.push(out);
        scheduleDelivery();
        nudge();
      }
    })();
  }

  async function run(): Promise<void> {
    let lastSweep = 0;
    while (!stopping.signal.aborted) {
      let exhausted = false;
      try {
        // Claimed ahead, so a lane that finishes finds its next URL waiting.
        const room = Math.min(2 * options.lanes, 3 * options.lanes - inFlight - queue.length);
        if (room >= options.lanes) {
          const got = await store.claim(id, options.leaseMs, nowMs(), room);
          exhausted = got.length < room;
          if (got.length > 0) sleepMs = idleMs;
          queue.push(...got);
        }
        while (inFlight < options.lanes && queue.length > 0 && !stopping.signal.aborted) begin(queue.shift()!);
        const busy = inFlight > 0 || queue.length > 0 || outbox.length > 0 || delivering !== undefined;
        if (!busy || nowMs() - lastSweep > BUSY_SWEEP_MS) {
          // Nothing here to read: some crawl may have run out of URLs (here or on another instance), or past its deadline.
          lastSweep = nowMs();
          await finishCrawls();
        }
        if (stopping.signal.aborted) break;
        if (busy) {
          // Lanes free and URLs left: claim again at once. Otherwise a lane or a delivery ends the wait; with lanes free,
          // another instance's links may come too: ask again after idleMs.
          if (inFlight < options.lanes && !exhausted) continue;
          await waitForNudge(inFlight < options.lanes ? idleMs : Infinity);
        } else if (await store.anyActive()) {
          // A crawl runs (on another instance, or its URLs are all leased): its next links may come any time.
          sleepMs = idleMs;
          await waitForNudge(idleMs);
        } else {
          await waitForNudge(sleepMs);
          sleepMs = Math.min(maxIdleMs, sleepMs * 2);
        }
      } catch (error) {
        if (stopping.signal.aborted) break;
        log.warn("crawl: worker error", { error: (error as Error).message });
        await waitForNudge(idleMs);
      }
    }
    // Stopped: pages read are delivered; URLs not started go back at once.
    for (const claimed of queue.splice(0)) outbox.push({ claimed, delivery: { kind: "retry", notBeforeMs: 0 } });
    while (inFlight > 0) await waitForNudge(Infinity);
    while (outbox.length > 0 || delivering) await deliver();
  }

  return {
    id,
    start() {
      if (loop) return;
      loop = run();
      // Only while it holds URLs (claimed, being read, or waiting for their batch): an idle worker writes nothing.
      const holds = () => queue.length > 0 || inFlight > 0 || outbox.length > 0 || delivering !== undefined;
      renewTimer = setInterval(() => void (holds() ? store.renew(id, nowMs() + options.leaseMs).catch(() => undefined) : undefined), Math.max(500, options.leaseMs / 3));
      renewTimer.unref?.();
    },
    stop() {
      stopping.abort(new Error("crawl worker stopping"));
      if (renewTimer) clearInterval(renewTimer);
      nudge();
    },
    wake() {
      sleepMs = idleMs;
      nudge();
    },
    async stopped() {
      await loop;
    },
  };
}
