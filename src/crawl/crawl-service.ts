/**
 * @module crawl/crawl-service — web/crawl wired into a running app: the facet the plugin's `run`
 * uses (a held crawl, released once its payment settles), GET/DELETE /v1/web/crawl/:id for the
 * payer alone (the payer's Sign-In-With-X proof; over MCP the crawl_status and crawl_cancel
 * tools), this instance's worker, the webhooks and the
 * sweep that deletes expired crawls with their pages. Stops with the store.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { EvidenceKeys } from "../evidence/key-file.ts";
import { contextOf } from "../http/request-context.ts";
import { errorResponse, jsonResponse, withRequestId } from "../http/respond.ts";
import type { Logger } from "../log.ts";
import type { DeliveryRefunds } from "../refunds/delivery-refunds.ts";
import type { ReceiptStore } from "../store/receipts.ts";
import type { WebEngine } from "../web/engine.ts";
import { vetTarget } from "../web/fetch/target-guard.ts";
import { createPayerProofs, PAYER_PROOF_HEADER, type PayerProofs } from "../x402/payer-proof.ts";
import type { ProofNonces } from "../x402/proof-nonces.ts";
import type { CrawlAsker, CrawlCall, CrawlDoor, CrawlFacet } from "./crawl-facet.ts";
import { createCrawlRefunds, crawlPaidOf, refundDueOf } from "./crawl-refund.ts";
import { checkWebhookUrl, DEFAULT_CRAWL_PAGES } from "./crawl-schemas.ts";
import type { CrawlPayment, CrawlRow, CrawlStore, FrontierEntry } from "./crawl-store.ts";
import { createCrawlWebhooks } from "./crawl-webhook.ts";
import { createCrawlWorker, type CrawlWorker } from "./crawl-worker.ts";
import { followable, linkRulesOf } from "./crawl-links.ts";

export type CrawlConfig = Pick<Config, "crawlLanes" | "crawlPerHost" | "crawlHostDelayMs" | "crawlTtlHours" | "crawlDeadlineMin" | "crawlLeaseSec" | "unsafeAllowLoopbackTargets">;

export interface CrawlService extends CrawlDoor {
  facet(call: CrawlCall): CrawlFacet;
  get(request: Request, id: string): Promise<Response>;
  cancel(request: Request, id: string): Promise<Response>;
  readonly worker: CrawlWorker;
}

const crawlIdPattern = /^crawl_[0-9a-f]{32}$/;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;
const sweepEveryMs = 60_000;

export const crawlStatusPath = (id: string) => `/v1/web/crawl/${id}`;

/**
 * The crawl the asker may see: 404 for an unknown or expired id; a paid crawl only to its payer's
 * proof (401 none or refused, 403 another wallet's); a free one (payments off, no payer) to the
 * holder of its id, as a job is.
 */
async function crawlFor(store: CrawlStore, proofs: PayerProofs, asker: CrawlAsker, id: string, nowMs: number): Promise<CrawlRow> {
  const row = crawlIdPattern.test(id) ? await store.get(id) : undefined;
  if (!row || row.status === "held" || row.expiresMs <= nowMs) throw new ApiError("CRAWL_NOT_FOUND");
  if (row.payer === null) return row;
  const network = row.payment?.network ?? row.paid?.network ?? null;
  await proofs.check(asker.proof, { resourceUrl: new URL(crawlStatusPath(row.id), asker.origin).toString(), payer: row.payer, network }, () => new ApiError("CRAWL_ACCESS_DENIED"));
  return row;
}

export function crawlView(row: CrawlRow): Record<string, unknown> {
  const active = row.status === "queued" || row.status === "running";
  return {
    ok: true,
    crawl_id: row.id,
    url: row.request.url,
    status: row.status,
    limit: row.limit,
    counts: row.counts,
    ...(row.stopReason && row.status === "completed" ? { stop_reason: row.stopReason } : {}),
    ...(row.error ? { error: row.error } : {}),
    created_at: row.createdAt,
    finished_at: row.finishedAt,
    expires_at: new Date(row.expiresMs).toISOString(),
    ...refundDueOf(row),
    ...(active ? { retry_after_sec: 2 } : {}),
  };
}

export function createCrawlService(options: {
  readonly config: CrawlConfig;
  readonly store: CrawlStore;
  readonly web: WebEngine;
  readonly log: Logger;
  readonly now: () => Date;
  readonly evidenceKeys: EvidenceKeys;
  readonly seal?: (result: object, payment: CrawlPayment | null) => Promise<unknown>;
  /** The settled receipts, and the ledger the pages a crawl did not read are refunded through (crawl-refund.ts). */
  readonly receipts?: Pick<ReceiptStore, "get">;
  readonly refunds?: Pick<DeliveryRefunds, "recordDue">;
  /** The payer proofs' nonces taken (shared by the instances of one database). */
  readonly proofNonces: ProofNonces;
  /** The public origin a request reached (the proof must name it). */
  readonly publicUrl: (request: Request) => string;
  /** Runs `stop` when the store closes. */
  readonly onClose: (stop: () => void) => void;
}): CrawlService {
  const { config, store, log, now } = options;
  const webhooks = createCrawlWebhooks({ keys: options.evidenceKeys, log, now, allowLoopbackTargets: config.unsafeAllowLoopbackTargets });
  const refunds = options.refunds ? createCrawlRefunds({ store, ledger: options.refunds, now }) : undefined;
  const refundEnded = (row: CrawlRow) =>
    void refunds?.record(row).catch((error: Error) => log.warn("crawl refund not recorded yet (the sweep retries)", { crawl_id: row.id, error: error.message }));
  const worker = createCrawlWorker({
    store,
    web: options.web,
    log,
    now,
    events: {
      page: webhooks.page,
      ended: (row) => {
        refundEnded(row);
        webhooks.ended(row);
      },
    },
    ...(options.seal ? { seal: options.seal } : {}),
    options: { lanes: config.crawlLanes, perHost: config.crawlPerHost, hostDelayMs: config.crawlHostDelayMs, leaseMs: config.crawlLeaseSec * 1000 },
  });
  worker.start();
  const sweep = () => {
    void store.purgeExpired(now().getTime()).catch((error: Error) => log.warn("crawl purge failed", { error: error.message }));
    void refunds?.sweep().catch((error: Error) => log.warn("crawl refunds sweep failed", { error: error.message }));
  };
  sweep();
  const timer = setInterval(sweep, sweepEveryMs);
  timer.unref?.();
  options.onClose(() => {
    clearInterval(timer);
    worker.stop();
    webhooks.stop();
  });

  const facet = (call: CrawlCall): CrawlFacet => ({
    async check(input) {
      // The start page is vetted as a read vets it, before the crawl is sold: a crawl that could
      // fetch nothing (a private or link-local address, another scheme) is never charged.
      const policy = { allowLoopbackTargets: config.unsafeAllowLoopbackTargets };
      await vetTarget(input.url, policy);
      checkWebhookUrl(input.webhook, policy);
    },
    async create(input) {
      const id = `crawl_${randomBytes(16).toString("hex")}`;
      const created = now();
      const limit = input.limit ?? DEFAULT_CRAWL_PAGES;
      const expiresMs = created.getTime() + config.crawlTtlHours * 3_600_000;
      const start = followable(input.url, { ...linkRulesOf(input), patterns: { include: [], exclude: [] } }) ?? input.url;
      const seeds: FrontierEntry[] = [
        ...(input.sitemap === "only" ? [] : [{ url: start, depth: 0 }]),
        ...(input.sitemap === "skip" ? [] : [{ url: `sitemaps:${new URL(start).origin}`, depth: 0, kind: "sitemaps" as const }]),
      ];
      await store.create(
        { id, request: input, payer: call.payer?.toLowerCase() ?? null, limit, createdAt: created.toISOString(), deadlineMs: created.getTime() + config.crawlDeadlineMin * 60_000, expiresMs },
        seeds,
      );
      const statusUrl = new URL(crawlStatusPath(id), call.origin ?? "http://localhost").toString();
      return { ok: true, crawl_id: id, status: "queued", status_url: statusUrl, limit, expires_at: new Date(expiresMs).toISOString() };
    },
    async release(accepted, receipt) {
      const payment: CrawlPayment = { network: receipt.network, transaction: receipt.transaction, requestId: call.requestId, resourceUrl: new URL("/v1/web/crawl", accepted.status_url).toString() };
      // Unreadable receipt: the crawl still starts (it was paid), but no refund can be owed from it.
      const found = receipt.paymentId
        ? await options.receipts?.get(receipt.paymentId).catch((error: Error) => void log.error("crawl: its receipt could not be read, so no refund will be recorded", { crawl_id: accepted.crawl_id, error: error.message }))
        : undefined;
      const paid = crawlPaidOf(found ?? undefined, call.requestId);
      if (await store.release(accepted.crawl_id, payment, paid)) worker.wake();
    },
    drop: (accepted) => store.drop(accepted.crawl_id),
  });

  const proofs = createPayerProofs(options.proofNonces, now);
  const askerOf = (request: Request): CrawlAsker => ({ proof: request.headers.get(PAYER_PROOF_HEADER), origin: options.publicUrl(request) });
  const service: CrawlService = {
    facet,
    worker,
    async status(id, asker, query) {
      const row = await crawlFor(store, proofs, asker, id, now().getTime());
      const cursor = Number(query.cursor ?? "0");
      const size = Number(query.limit ?? DEFAULT_PAGE_SIZE);
      if (!Number.isSafeInteger(cursor) || cursor < 0 || !Number.isSafeInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
        throw new ApiError("INVALID_REQUEST", { message: `cursor must be a whole number from a previous answer's next_cursor, and limit 1 to ${MAX_PAGE_SIZE}.` });
      }
      const pages = await store.pages(id, cursor, size);
      const next = pages.at(-1)?.seq ?? cursor;
      return { ...crawlView(row), pages: pages.map((p) => JSON.parse(p.result) as unknown), next_cursor: String(next), more_pages: next < row.delivered };
    },
    async stop(id, asker) {
      const row = await crawlFor(store, proofs, asker, id, now().getTime());
      const cancelled = await store.cancel(row.id, now());
      const after = (await store.get(row.id)) ?? row;
      if (cancelled) refundEnded(after);
      return crawlView(after);
    },
    async get(request, id) {
      const context = contextOf(request);
      context.route = "/v1/web/crawl/:id";
      try {
        const query = new URL(request.url).searchParams;
        const body = await service.status(id, askerOf(request), { cursor: query.get("cursor") ?? undefined, limit: query.get("limit") ?? undefined });
        return jsonResponse(withRequestId(body, context.id), 200, { "Cache-Control": "no-store" });
      } catch (error) {
        return errorResponse(error, context, log);
      }
    },
    async cancel(request, id) {
      const context = contextOf(request);
      context.route = "/v1/web/crawl/:id";
      try {
        return jsonResponse(withRequestId(await service.stop(id, askerOf(request)), context.id), 200, { "Cache-Control": "no-store" });
      } catch (error) {
        return errorResponse(error, context, log);
      }
    },
  };
  return service;
}
