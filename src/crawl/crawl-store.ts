/**
 * @module crawl/crawl-store — the contract of web/crawl's tables (crawls, their frontier and pages,
 * their text hashes) that the SQLite (crawl-store-sqlite.ts) and PostgreSQL (crawl-store-pg.ts)
 * engines both keep, and the rows they answer.
 *
 * The frontier is `crawl_urls`: one row per canonical URL of a crawl (unique), claimed under a lease
 * (`lease_owner`, `lease_until`): a URL whose instance died is claimed again once its lease lapses,
 * and a delivery counts only from the lease's owner, so no URL is delivered twice. A page URL takes
 * one unit of the crawl's budget (`used` < `limit_pages`) when first claimed: the crawl stops at its
 * limit exactly. Delivered pages are numbered per crawl (`page_seq`) under the crawl row's lock,
 * so a cursor over them never skips one that committed late.
 */
import type { CrawlRequest, CrawlStatus } from "./crawl-schemas.ts";

export interface CrawlCounts {
  readonly discovered: number;
  readonly fetched: number;
  readonly failed: number;
  readonly robots_blocked: number;
  readonly duplicates: number;
}

/** What signs the crawl's pages: the settled payment, as a paid read's statement names it. */
export interface CrawlPayment {
  readonly network: string | null;
  readonly transaction: string | null;
  readonly requestId?: string;
  readonly resourceUrl?: string;
}

/** The settled payment a crawl's undelivered pages are refunded from (crawl-refund.ts). */
export interface CrawlPaid {
  /** The receipt id: the refund's id, so it is recorded once however many instances end the crawl. */
  readonly paymentId: string;
  readonly payer: string;
  readonly network: string;
  readonly transaction: string | null;
  readonly operationId: string;
  readonly requestId: string;
  /** What was settled, in USD micros. */
  readonly micros: number;
}

/** Held: created by a paid call whose payment has not settled yet; no URL of it is claimed. */
export type StoredCrawlStatus = CrawlStatus | "held";

/** Why a crawl completed: its limit, nothing left to fetch, its deadline. */
export type StopReason = "limit" | "frontier_empty" | "deadline";

export interface CrawlRow {
  readonly id: string;
  readonly status: StoredCrawlStatus;
  readonly request: CrawlRequest;
  readonly payer: string | null;
  readonly payment: CrawlPayment | null;
  readonly limit: number;
  /** Page URLs claimed so far (each once): never above `limit`. */
  readonly used: number;
  readonly delivered: number;
  readonly counts: CrawlCounts;
  readonly stopReason: StopReason | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly createdAt: string;
  readonly deadlineMs: number;
  readonly expiresMs: number;
  readonly finishedAt: string | null;
  readonly paid: CrawlPaid | null;
  /** Set when the crawl ends: the paid micros of the pages not read, owed back to the payer. */
  readonly refundMicros: number | null;
  /** The refund was written to the delivery refunds ledger. */
  readonly refundRecorded: boolean;
}

export interface NewCrawl {
  readonly id: string;
  readonly request: CrawlRequest;
  readonly payer: string | null;
  readonly limit: number;
  readonly createdAt: string;
  readonly deadlineMs: number;
  readonly expiresMs: number;
}

/** `sitemaps`: the task of reading the site's sitemaps into the frontier (no budget, no page). */
export type FrontierKind = "page" | "sitemaps";

export interface FrontierEntry {
  readonly url: string;
  readonly depth: number;
  readonly kind?: FrontierKind;
}

export interface ClaimedUrl {
  readonly seq: number;
  readonly crawlId: string;
  readonly url: string;
  readonly depth: number;
  readonly kind: FrontierKind;
  /** Claims of this URL so far, this one included. */
  readonly attempts: number;
}

export type Delivery =
  /** A read result (JSON, signed); a text already delivered by this crawl makes it a duplicate instead. `links` enter the frontier in the same transaction. */
  | { readonly kind: "page"; readonly result: string; readonly textSha256: string; readonly links?: NewLinks }
  /** An inline error (JSON) in the crawl's pages. */
  | { readonly kind: "error"; readonly result: string }
  /** Not fetched now (429/503, a busy host): back to the frontier, claimable from `notBeforeMs`. */
  | { readonly kind: "retry"; readonly notBeforeMs: number }
  /** robots.txt refused it at fetch time: its budget unit is given back. */
  | { readonly kind: "robots" }
  /** The sitemaps task is done (its URLs were enqueued). */
  | { readonly kind: "done" };

/** One claimed URL's outcome, as `CrawlStore.deliver` records it. */
export interface ClaimDelivery {
  readonly claimed: ClaimedUrl;
  readonly delivery: Delivery;
}

/** URLs a page adds to its crawl's frontier (see `CrawlStore.enqueue`). */
export interface NewLinks {
  readonly entries: readonly FrontierEntry[];
  readonly robotsBlocked: number;
  readonly cap: number;
}

export type DeliveryOutcome = { readonly kind: "delivered"; readonly pageSeq: number } | { readonly kind: "duplicate" | "requeued" | "recorded" | "lost" };

export interface CrawlPage {
  readonly seq: number;
  /** The read result or inline error, as JSON. */
  readonly result: string;
}

export interface CrawlStore {
  /** A held crawl and its first frontier entries. */
  create(crawl: NewCrawl, seeds: readonly FrontierEntry[]): Promise<void>;
  /** held → queued once its payment settled (`paid`: what its undelivered pages are refunded from); false when it is not held (gone, already released). */
  release(id: string, payment: CrawlPayment, paid?: CrawlPaid): Promise<boolean>;
  /** Deletes a held crawl whose payment did not settle. */
  drop(id: string): Promise<void>;
  get(id: string): Promise<CrawlRow | undefined>;
  /**
   * Up to `max` of the oldest claimable URLs of the running crawls (in `seq` order, a page only while
   * its crawl has budget left), leased to `worker` until `nowMs + leaseMs`, in one transaction; none: [].
   */
  claim(worker: string, leaseMs: number, nowMs: number, max: number): Promise<ClaimedUrl[]>;
  /** Extends `worker`'s leases; answers how many it holds. */
  renew(worker: string, untilMs: number): Promise<number>;
  /** Adds URLs not yet known (canonical, unique per crawl) while the crawl has fewer than `cap`; answers how many were new. */
  enqueue(crawlId: string, entries: readonly FrontierEntry[], options: { readonly robotsBlocked: number; readonly cap: number; readonly nowMs: number }): Promise<number>;
  /**
   * Records claimed URLs' outcomes in one transaction, in the order given (a text delivered earlier in
   * the list makes a later one a duplicate), each only if `worker` still holds its lease ("lost"
   * otherwise: another instance has it); answers one outcome per delivery.
   */
  deliver(worker: string, deliveries: readonly ClaimDelivery[]): Promise<DeliveryOutcome[]>;
  /** Whether any crawl is queued or running (an idle worker polls while one is, and backs off while none is). */
  anyActive(): Promise<boolean>;
  /** Completes running crawls past their deadline or with nothing left to claim (one crawl, or all); answers those completed now. */
  finish(nowMs: number, crawlId?: string): Promise<CrawlRow[]>;
  /** queued/running → cancelled; false when it had already ended. */
  cancel(id: string, at: Date): Promise<boolean>;
  /** queued/running → failed with the error. */
  fail(id: string, error: { code: string; message: string }, at: Date): Promise<boolean>;
  /** Delivered pages after the cursor `afterSeq`, in delivery order. */
  pages(id: string, afterSeq: number, max: number): Promise<CrawlPage[]>;
  /** Deletes the crawls (with frontier and pages) that expired; answers how many. */
  purgeExpired(nowMs: number): Promise<number>;
  /** Ended crawls with a refund due not yet written to the ledger (an instance stopped in between). */
  unrecordedRefunds(): Promise<CrawlRow[]>;
  /** The crawl's refund is in the ledger. */
  refundRecorded(id: string): Promise<void>;
}

/** The frontier state a delivery leaves its URL in. */
export const DELIVERED_STATE: Readonly<Record<Delivery["kind"], string>> = { page: "done", error: "failed", retry: "pending", robots: "robots", done: "done" };

/** The crawls row as both engines store it. */
export interface RawCrawl {
  id: string;
  status: string;
  request: string;
  payer: string | null;
  payment: string | null;
  limit_pages: number;
  used: number;
  delivered: number;
  discovered: number;
  fetched: number;
  failed: number;
  robots_blocked: number;
  duplicates: number;
  stop_reason: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  deadline_ms: number;
  expires_ms: number;
  finished_at: string | null;
  paid: string | null;
  refund_micros: number | string | null;
  refund_recorded: number;
}

export interface RawClaim {
  seq: number;
  crawl_id: string;
  url: string;
  depth: number;
  kind: string;
  budgeted: number;
  attempts: number;
}

export function toCrawlRow(r: RawCrawl): CrawlRow {
  return {
    id: r.id,
    status: r.status as StoredCrawlStatus,
    request: JSON.parse(r.request) as CrawlRequest,
    payer: r.payer,
    payment: r.payment ? (JSON.parse(r.payment) as CrawlPayment) : null,
    limit: Number(r.limit_pages),
    used: Number(r.used),
    delivered: Number(r.delivered),
    counts: { discovered: Number(r.discovered), fetched: Number(r.fetched), failed: Number(r.failed), robots_blocked: Number(r.robots_blocked), duplicates: Number(r.duplicates) },
    stopReason: r.stop_reason as StopReason | null,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? "" } : null,
    createdAt: r.created_at,
    deadlineMs: Number(r.deadline_ms),
    expiresMs: Number(r.expires_ms),
    finishedAt: r.finished_at,
    paid: r.paid ? (JSON.parse(r.paid) as CrawlPaid) : null,
    refundMicros: r.refund_micros === null ? null : Number(r.refund_micros),
    refundRecorded: Number(r.refund_recorded) === 1,
  };
}

export function toClaimed(r: RawClaim, attempts: number): ClaimedUrl {
  return { seq: Number(r.seq), crawlId: r.crawl_id, url: r.url, depth: Number(r.depth), kind: r.kind as FrontierKind, attempts };
}

/** Columns of the two tables in either dialect; `serial` is the frontier's own key type. */
export function crawlTablesSql(dialect: { serial: string; int8: string }): string {
  return `CREATE TABLE crawls (
      id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      request TEXT NOT NULL,
      payer TEXT,
      token_sha256 TEXT NOT NULL,
      payment TEXT,
      limit_pages INTEGER NOT NULL,
      used INTEGER NOT NULL DEFAULT 0,
      delivered INTEGER NOT NULL DEFAULT 0,
      discovered INTEGER NOT NULL DEFAULT 0,
      fetched INTEGER NOT NULL DEFAULT 0,
      failed INTEGER NOT NULL DEFAULT 0,
      robots_blocked INTEGER NOT NULL DEFAULT 0,
      duplicates INTEGER NOT NULL DEFAULT 0,
      stop_reason TEXT,
      error_code TEXT,
      error_message TEXT,
      created_at TEXT NOT NULL,
      deadline_ms ${dialect.int8} NOT NULL,
      expires_ms ${dialect.int8} NOT NULL,
      finished_at TEXT,
      paid TEXT,
      paid_micros ${dialect.int8},
      refund_micros ${dialect.int8},
      refund_recorded INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX crawls_active ON crawls (status);
    CREATE INDEX crawls_expiry ON crawls (expires_ms);
    CREATE TABLE crawl_urls (
      seq ${dialect.serial},
      crawl_id TEXT NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
      url TEXT NOT NULL,
      depth INTEGER NOT NULL,
      kind TEXT NOT NULL DEFAULT 'page',
      state TEXT NOT NULL DEFAULT 'pending',
      budgeted INTEGER NOT NULL DEFAULT 0,
      lease_owner TEXT,
      lease_until ${dialect.int8},
      not_before ${dialect.int8} NOT NULL DEFAULT 0,
      attempts INTEGER NOT NULL DEFAULT 0,
      page_seq INTEGER,
      result TEXT,
      UNIQUE (crawl_id, url)
    );
    CREATE INDEX crawl_urls_claimable ON crawl_urls (state, seq);
    CREATE INDEX crawl_urls_left ON crawl_urls (crawl_id, state);
    CREATE INDEX crawl_urls_pages ON crawl_urls (crawl_id, page_seq);
    CREATE TABLE crawl_texts (
      crawl_id TEXT NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
      sha256 TEXT NOT NULL,
      PRIMARY KEY (crawl_id, sha256)
    );`;
}

export const CRAWL_MIGRATION_ID = "crawl_0001_tables";

/**
 * The claim's filters, the same on both engines, tried in turn: a URL free (`pending`), else one
 * whose lease lapsed; of a running crawl before its deadline, with budget left for a page not yet
 * counted. One state per query keeps each an index range scan in `seq` order (an OR of the two
 * made every claim read the whole table).
 */
const CLAIM_CRAWL_SQL = `c.status IN ('queued', 'running') AND c.deadline_ms > $now AND (u.budgeted = 1 OR u.kind = 'sitemaps' OR c.used < c.limit_pages)`;
export const CLAIMABLE_SQL = [
  `u.state = 'pending' AND u.not_before <= $now AND ${CLAIM_CRAWL_SQL}`,
  `u.state = 'leased' AND u.lease_until < $now AND ${CLAIM_CRAWL_SQL}`,
] as const;

/** What a crawl that ended leaves in its frontier: never to be claimed (and no longer in the claims' way). */
export const SKIP_LEFTOVERS_SQL = `UPDATE crawl_urls SET state = 'skipped' WHERE crawl_id = $id AND state = 'pending'`;

/** A crawl with nothing left: no URL pending or leased that it could still claim. */
export const NOTHING_LEFT_SQL = `NOT EXISTS (SELECT 1 FROM crawl_urls u WHERE u.crawl_id = crawls.id AND u.state IN ('pending', 'leased')
      AND (u.budgeted = 1 OR u.kind = 'sitemaps' OR crawls.used < crawls.limit_pages))`;

/**
 * The SET of every end (completed, failed, cancelled): the paid share of the limit's pages not read
 * (inline errors and URLs never fetched included) is owed back, rounded down to a micro.
 */
export const REFUND_SET_SQL = `refund_micros = CASE WHEN paid_micros IS NULL THEN NULL ELSE paid_micros * (limit_pages - fetched) / limit_pages END`;

/** The ended crawls whose refund due is not in the ledger yet. */
export const UNRECORDED_REFUNDS_SQL = `SELECT * FROM crawls WHERE refund_micros > 0 AND refund_recorded = 0 AND status IN ('completed', 'failed', 'cancelled') ORDER BY finished_at LIMIT 100`;

/** The SET of a crawl that ends: completed, or failed when not one page could be read. */
export const FINISH_SET_SQL = `${REFUND_SET_SQL},
      status = CASE WHEN fetched = 0 THEN 'failed' ELSE 'completed' END,
      stop_reason = CASE WHEN $now >= deadline_ms THEN 'deadline' WHEN used >= limit_pages THEN 'limit' ELSE 'frontier_empty' END,
      error_code = CASE WHEN fetched = 0 THEN 'CRAWL_NO_PAGES' END,
      error_message = CASE WHEN fetched = 0 THEN 'Not one page of the site could be read (see the pages for each error).' END`;
