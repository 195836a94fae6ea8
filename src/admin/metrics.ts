/**
 * @module admin/metrics — the Prometheus exposition served on the admin listener, by
 * prom-client. Two kinds of figures:
 *  - observed in-process as they happen (requests, 402 challenges, settlement calls, extraction
 *    and render time): hooks the service calls, cheap enough for every request;
 *  - read from the database when scraped (revenue, receipts, refunds, the job queue, job
 *    durations), so they survive restarts and cost nothing on the paid path.
 * Built only when the admin listener is on.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { AcceptedPayment, Payments } from "../paid-call/payments.ts";
import type { Store } from "../database.ts";
import type { BrowserRenderer } from "../web/render/renderer.ts";
import { usdOf } from "./money.ts";

export interface ObservedRequest {
  readonly method: string;
  /** Route pattern (never the raw path of an unknown route: label values stay few). */
  readonly route: string | undefined;
  readonly status: number;
  readonly ms: number;
  readonly outcome: string;
}

export interface MetricsSources {
  readonly store: Store;
  readonly renderer?: BrowserRenderer | undefined;
  readonly extractThreads?: { readonly size: number; started(): number } | undefined;
  readonly now?: () => Date;
}

export interface Metrics {
  readonly contentType: string;
  text(): Promise<string>;
  observeRequest(request: ObservedRequest): void;
  /** Times settle() of every payment this layer accepts. */
  instrumentPayments(payments: Payments): Payments;
  /** Wraps an async function, recording its seconds in the given histogram. */
  timeExtraction<A extends unknown[], R>(run: (...args: A) => Promise<R>): (...args: A) => Promise<R>;
  timeRender<A extends unknown[], R>(run: (...args: A) => Promise<R>): (...args: A) => Promise<R>;
  close(): void;
}

interface RequestTally {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  count: number;
  seconds: number;
}

/** Label values stay few: any other method a client invents counts as "other". */
const knownMethods = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600];

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  const now = sources.now ?? (() => new Date());
  collectDefaultMetrics({ register: registry });
  // Per-heap-space figures come from v8.getHeapSpaceStatistics(), which under Bun walks the heap:
  // ~20 ms a scrape, measured. The totals (nodejs_heap_size_*) and RSS stay.
  for (const name of ["nodejs_heap_space_size_total_bytes", "nodejs_heap_space_size_used_bytes", "nodejs_heap_space_size_available_bytes"]) registry.removeSingleMetric(name);
  const { figures } = sources.store;
  const registers = [registry];

  // Requests are tallied in plain numbers (a map lookup and two additions per request) and handed to
  // prom-client when scraped: observing a prom-client histogram on every request cost /health a
  // measurable share of its CPU (scripts/bench/admin-overhead.ts). Latency buckets are kept for the
  // slower work below (extraction, render, settlement, jobs).
  const tallies = new Map<string, Map<number, RequestTally>>();
  new Counter({
    name: "tollbooth_http_requests_total",
    help: "Requests answered, by route pattern and status.",
    labelNames: ["method", "route", "status"],
    registers,
    collect() {
      this.reset();
      for (const byStatus of tallies.values()) for (const t of byStatus.values()) this.inc({ method: t.method, route: t.route, status: String(t.status) }, t.count);
    },
  });
  new Counter({
    name: "tollbooth_http_request_duration_seconds_total",
    help: "Seconds spent answering, by route pattern (divide by tollbooth_http_requests_total for the mean).",
    labelNames: ["route"],
    registers,
    collect() {
      this.reset();
      for (const [route, byStatus] of tallies) this.inc({ route }, [...byStatus.values()].reduce((sum, t) => sum + t.seconds, 0));
    },
  });
  new Counter({
    name: "tollbooth_payment_challenges_total",
    help: "402 price previews (PAYMENT-REQUIRED) sent, by route.",
    labelNames: ["route"],
    registers,
    collect() {
      this.reset();
      for (const [route, byStatus] of tallies) {
        const count = [...byStatus.values()].filter((t) => t.status === 402).reduce((sum, t) => sum + t.count, 0);
        if (count > 0) this.inc({ route }, count);
      }
    },
  });
  const settlements = new Counter({ name: "tollbooth_settlements_total", help: "Settlement attempts made by this process, by outcome (settled, refused, pending, error).", labelNames: ["outcome"], registers });
  const settleSeconds = new Histogram({ name: "tollbooth_settlement_duration_seconds", help: "Time of one settlement call (facilitator or chain).", labelNames: ["outcome"], buckets: secondsBuckets, registers });
  const extractionSeconds = new Histogram({ name: "tollbooth_extraction_duration_seconds", help: "Time to extract one HTML page on the extraction threads (queue wait included).", buckets: secondsBuckets, registers });
  const renderSeconds = new Histogram({ name: "tollbooth_render_duration_seconds", help: "Time of one headless-browser render (render: true).", labelNames: ["result"], buckets: secondsBuckets, registers });

  // ── read from the database at scrape time ────────────────────────────────
  new Counter({
    name: "tollbooth_paid_calls_total",
    help: "Settled payments, by network (all time, from the receipts table).",
    labelNames: ["network"],
    registers,
    async collect() {
      this.reset();
      for (const r of await figures.revenueByNetwork()) this.inc({ network: r.network }, r.calls);
    },
  });
  new Counter({
    name: "tollbooth_revenue_atomic_total",
    help: "Revenue settled, in the token's atomic units (USDC: millionths), by network.",
    labelNames: ["network"],
    registers,
    async collect() {
      this.reset();
      for (const r of await figures.revenueByNetwork()) this.inc({ network: r.network }, r.atomic);
    },
  });
  new Counter({
    name: "tollbooth_revenue_usd_total",
    help: "Revenue settled, in US dollars, by network.",
    labelNames: ["network"],
    registers,
    async collect() {
      this.reset();
      for (const r of await figures.revenueByNetwork()) this.inc({ network: r.network }, usdOf(r.network, r.atomic));
    },
  });
  new Gauge({
    name: "tollbooth_receipts",
    help: "Payment receipts by state (reserved, pending = settling or unresolved, settled, failed, unused).",
    labelNames: ["state"],
    registers,
    async collect() {
      const counts = await figures.receiptsByState();
      for (const state of ["reserved", "pending", "settled", "failed", "unused"]) this.set({ state }, counts[state] ?? 0);
    },
  });
  // Settlement latency as recorded in receipts (reservation → settled), including settlements by reconciliation.
  let settledCursor = now().toISOString();
  const settledLatency = new Histogram({
    name: "tollbooth_receipt_settle_latency_seconds",
    help: "From reservation to settlement, per receipt settled since this process started, by network.",
    labelNames: ["network"],
    buckets: secondsBuckets,
    registers,
    async collect() {
      for (const r of await figures.settledSince(settledCursor)) {
        settledLatency.observe({ network: r.network }, Math.max(0, r.seconds));
        settledCursor = r.settledAt;
      }
    },
  });
  new Gauge({
    name: "tollbooth_refunds",
    help: "Refunds owed on jobs settled at acceptance that failed by our fault, by state (due, sending, paid).",
    labelNames: ["state"],
    registers,
    async collect() {
      const rows = await figures.refundsByState();
      for (const state of ["due", "sending", "paid"]) this.set({ state }, rows.find((r) => r.state === state)?.count ?? 0);
    },
  });
  new Gauge({
    name: "tollbooth_refunds_usd",
    help: "Dollars of refunds, by state.",
    labelNames: ["state"],
    registers,
    async collect() {
      const rows = await figures.refundsByState();
      for (const state of ["due", "sending", "paid"]) this.set({ state }, (rows.find((r) => r.state === state)?.micros ?? 0) / 1e6);
    },
  });
  new Gauge({
    name: "tollbooth_jobs",
    help: "Jobs by status (queued = queue depth, running).",
    labelNames: ["status"],
    registers,
    async collect() {
      const counts = await figures.jobsByStatus();
      for (const status of ["queued", "running", "completed", "failed", "expired"]) this.set({ status }, counts[status] ?? 0);
    },
  });
  let jobsCursor = now().toISOString();
  const jobSeconds = new Histogram({
    name: "tollbooth_job_duration_seconds",
    help: "Run time of skill calls (sync and async jobs) finished since this process started, by skill and status.",
    labelNames: ["skill", "status"],
    buckets: secondsBuckets,
    registers,
    async collect() {
      // Jobs cannot run longer than 600 s, so only rows created since cursor - 1 h need looking at (created_at is indexed).
      const createdAfter = new Date(Date.parse(jobsCursor) - 3_600_000).toISOString();
      for (const r of await figures.finishedJobs(jobsCursor, createdAfter)) {
        jobSeconds.observe({ skill: r.skill, status: r.status }, Math.max(0, r.seconds));
        jobsCursor = r.finishedAt;
      }
    },
  });

  // ── in-process state ─────────────────────────────────────────────────────
  const renderer = sources.renderer;
  new Gauge({
    name: "tollbooth_render_pages",
    help: "Renders running and waiting for a page slot.",
    labelNames: ["state"],
    registers,
    collect() {
      const stats = renderer?.stats();
      this.set({ state: "active" }, stats?.active ?? 0);
      this.set({ state: "queued" }, stats?.queued ?? 0);
    },
  });
  new Gauge({
    name: "tollbooth_browser_launches",
    help: "Chromium processes started since start (restarts after a crash or 200 renders = launches - 1).",
    registers,
    collect() {
      this.set(renderer?.stats().launches ?? 0);
    },
  });
  const threads = sources.extractThreads;
  new Gauge({
    name: "tollbooth_extraction_threads",
    help: "Extraction threads: the pool's size and those running now (one beyond the first ends after 3 s idle).",
    labelNames: ["state"],
    registers,
    collect() {
      this.set({ state: "max" }, threads?.size ?? 0);
      this.set({ state: "started" }, threads?.started() ?? 0);
    },
  });

  const timed =
    (observe: (seconds: number, ok: boolean) => void) =>
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        const result = await run(...args);
        observe((performance.now() - started) / 1000, true);
        return result;
      } catch (error) {
        observe((performance.now() - started) / 1000, false);
        throw error;
      }
    };

  const instrumentPayment = (payment: AcceptedPayment): AcceptedPayment => ({
    ...payment,
    snapshot: () => payment.snapshot(),
    release: () => payment.release(),
    async settle(context) {
      const started = performance.now();
      let outcome = "error";
      try {
        const result = await payment.settle(context);
        outcome = result.kind === "settled" ? "settled" : result.state === "pending" ? "pending" : "refused";
        return result;
      } finally {
        settlements.inc({ outcome });
        settleSeconds.observe({ outcome }, (performance.now() - started) / 1000);
      }
    },
  });

  return {
    contentType: registry.contentType,
    text: () => registry.metrics(),
    observeRequest(r) {
      const route = r.route ?? (r.status === 404 ? "unmatched" : "other");
      const methodIndex = knownMethods.indexOf(r.method);
      let byStatus = tallies.get(route);
      if (!byStatus) tallies.set(route, (byStatus = new Map()));
      const slot = r.status * 8 + (methodIndex >= 0 ? methodIndex : 7);
      let tally = byStatus.get(slot);
      if (!tally) byStatus.set(slot, (tally = { method: methodIndex >= 0 ? r.method : "other", route, status: r.status, count: 0, seconds: 0 }));
      tally.count++;
      tally.seconds += r.ms / 1000;
    },
    instrumentPayments(payments) {
      if (!payments.enabled) return payments;
      return {
        enabled: payments.enabled,
        async authorize(presented, charge, call) {
          const outcome = await payments.authorize(presented, charge, call);
          return outcome.kind === "accepted" ? { kind: "accepted", payment: instrumentPayment(outcome.payment) } : outcome;
        },
        offer: (charge, error) => payments.offer(charge, error),
        restore: (snapshot) => instrumentPayment(payments.restore(snapshot)),
      };
    },
    timeExtraction: timed((seconds) => extractionSeconds.observe(seconds)),
    timeRender: timed((seconds, ok) => renderSeconds.observe({ result: ok ? "ok" : "error" }, seconds)),
    close() {
      registry.clear();
    },
  };
}
