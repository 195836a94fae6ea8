/**
 * @module crawl/crawl-store-pg — web/crawl's tables on PostgreSQL, shared by every instance. A claim
 * takes a batch of the oldest claimable URLs with `FOR UPDATE OF u SKIP LOCKED` (two instances never
 * wait on, nor take, the same row) and their budget units from the crawl row, locked, in one
 * transaction; a delivery (a batch too) counts only from the lease's owner. No transaction spans a fetch.
 */
import type { Migration } from "../store/db.ts";
import type { Sql, SqlTransaction } from "../store/postgres.ts";
import {
  type ClaimDelivery,
  type ClaimedUrl,
  CLAIMABLE_SQL,
  CRAWL_MIGRATION_ID,
  type CrawlStore,
  DELIVERED_STATE,
  type DeliveryOutcome,
  type FrontierEntry,
  type NewLinks,
  crawlTablesSql,
  NOTHING_LEFT_SQL,
  type RawClaim,
  type RawCrawl,
  SKIP_LEFTOVERS_SQL,
  FINISH_SET_SQL,
  REFUND_SET_SQL,
  toClaimed,
  UNRECORDED_REFUNDS_SQL,
  toCrawlRow,
} from "./crawl-store.ts";

export const crawlPgMigrations: readonly Migration[] = [{ id: CRAWL_MIGRATION_ID, sql: crawlTablesSql({ serial: "BIGSERIAL PRIMARY KEY", int8: "BIGINT" }) }];

/** `$now` of the shared SQL as a literal (always a finite integer here). */
const withNow = (text: string, nowMs: number) => text.replaceAll("$now", String(Math.trunc(nowMs)));

/** Adds a page's links to its crawl's frontier within `tx` (see CrawlStore.enqueue). */
async function addLinks(tx: SqlTransaction, crawlId: string, entries: readonly FrontierEntry[], options: Pick<NewLinks, "robotsBlocked" | "cap">): Promise<number> {
  const [row] = await tx<{ discovered: number }[]>`SELECT discovered FROM crawls WHERE id = ${crawlId}`;
  if (!row) return 0;
  const room = Math.max(0, options.cap - Number(row.discovered));
  const fresh = entries.slice(0, room * 4);
  let added = 0;
  if (fresh.length > 0 && room > 0) {
    const inserted = await tx<{ seq: number }[]>`
      INSERT INTO crawl_urls (crawl_id, url, depth, kind)
      SELECT ${crawlId}, e.url, e.depth, e.kind FROM json_to_recordset(${JSON.stringify(fresh.map((e) => ({ url: e.url, depth: e.depth, kind: e.kind ?? "page" })))}::text::json) AS e(url text, depth int, kind text)
      LIMIT ${room}
      ON CONFLICT (crawl_id, url) DO NOTHING RETURNING seq`;
    added = inserted.length;
  }
  await tx`UPDATE crawls SET discovered = discovered + ${added}, robots_blocked = robots_blocked + ${options.robotsBlocked} WHERE id = ${crawlId}`;
  return added;
}

const byCrawl = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Records one claimed URL's outcome within `tx` (see CrawlStore.deliver). */
async function deliverOne(tx: SqlTransaction, worker: string, { claimed, delivery }: ClaimDelivery): Promise<DeliveryOutcome> {
  const moved = await tx`UPDATE crawl_urls SET state = ${DELIVERED_STATE[delivery.kind]}, lease_owner = NULL, lease_until = NULL WHERE seq = ${claimed.seq} AND state = 'leased' AND lease_owner = ${worker}`;
  if (moved.count === 0) return { kind: "lost" };
  switch (delivery.kind) {
    case "retry":
      await tx`UPDATE crawl_urls SET not_before = ${delivery.notBeforeMs} WHERE seq = ${claimed.seq}`;
      return { kind: "requeued" };
    case "robots":
      await tx`UPDATE crawl_urls SET budgeted = 0 WHERE seq = ${claimed.seq}`;
      await tx`UPDATE crawls SET used = used - 1, robots_blocked = robots_blocked + 1 WHERE id = ${claimed.crawlId}`;
      return { kind: "recorded" };
    case "done":
      return { kind: "recorded" };
    case "page": {
      const added = await tx`INSERT INTO crawl_texts (crawl_id, sha256) VALUES (${claimed.crawlId}, ${delivery.textSha256}) ON CONFLICT DO NOTHING RETURNING sha256`;
      if (added.length === 0) {
        await tx`UPDATE crawl_urls SET state = 'duplicate' WHERE seq = ${claimed.seq}`;
        await tx`UPDATE crawls SET duplicates = duplicates + 1 WHERE id = ${claimed.crawlId}`;
        return { kind: "duplicate" };
      }
      if (delivery.links) await addLinks(tx, claimed.crawlId, delivery.links.entries, delivery.links);
      break;
    }
  }
  const [counted] = await tx<{ delivered: number }[]>`
    UPDATE crawls SET fetched = fetched + ${delivery.kind === "page" ? 1 : 0}, failed = failed + ${delivery.kind === "error" ? 1 : 0}, delivered = delivered + 1
    WHERE id = ${claimed.crawlId} RETURNING delivered`;
  const pageSeq = Number(counted?.delivered ?? 0);
  await tx`UPDATE crawl_urls SET page_seq = ${pageSeq}, result = ${delivery.result} WHERE seq = ${claimed.seq}`;
  return { kind: "delivered", pageSeq };
}

/** Leases up to `max` claimable URLs within `tx` (see CrawlStore.claim). */
async function claimIn(tx: SqlTransaction, worker: string, leaseMs: number, nowMs: number, max: number): Promise<ClaimedUrl[]> {
  const picked: RawClaim[] = [];
  for (const where of CLAIMABLE_SQL) {
    if (picked.length >= max) break;
    picked.push(
      ...(await tx.unsafe<RawClaim[]>(
        withNow(`SELECT u.seq, u.crawl_id, u.url, u.depth, u.kind, u.budgeted, u.attempts FROM crawl_urls u JOIN crawls c ON c.id = u.crawl_id WHERE ${where} ORDER BY u.seq LIMIT ${max - picked.length} FOR UPDATE OF u SKIP LOCKED`, nowMs),
      )),
    );
  }
  if (picked.length === 0) return [];
  // A new page takes a unit of its crawl's budget, granted under the crawl row's lock: two instances never take the last unit both.
  const needsBudget = (p: RawClaim) => p.kind === "page" && Number(p.budgeted) === 0;
  const units = new Map<string, number>();
  for (const crawlId of [...new Set(picked.map((p) => p.crawl_id))].sort(byCrawl)) {
    const [row] = await tx<{ used: number; limit_pages: number }[]>`SELECT used, limit_pages FROM crawls WHERE id = ${crawlId} AND status IN ('queued', 'running') FOR UPDATE`;
    if (!row) continue;
    const grant = Math.max(0, Math.min(picked.filter((p) => p.crawl_id === crawlId && needsBudget(p)).length, Number(row.limit_pages) - Number(row.used)));
    await tx`UPDATE crawls SET used = used + ${grant}, status = 'running' WHERE id = ${crawlId}`;
    units.set(crawlId, grant);
  }
  const leased = picked.filter((p) => {
    const left = units.get(p.crawl_id);
    if (left === undefined) return false;
    if (!needsBudget(p)) return true;
    if (left === 0) return false;
    units.set(p.crawl_id, left - 1);
    return true;
  });
  if (leased.length === 0) return [];
  await tx`UPDATE crawl_urls SET state = 'leased', lease_owner = ${worker}, lease_until = ${nowMs + leaseMs}, attempts = attempts + 1,
    budgeted = CASE WHEN kind = 'page' THEN 1 ELSE 0 END WHERE seq IN ${tx(leased.map((p) => p.seq))}`;
  return leased.map((p) => toClaimed(p, Number(p.attempts) + 1));
}

export function createPgCrawlStore(sql: Sql): CrawlStore {
  return {
    async create(crawl, seeds) {
      await sql.begin(async (tx) => {
        const discovered = seeds.filter((s) => (s.kind ?? "page") === "page").length;
        await tx`INSERT INTO crawls (id, status, request, payer, token_sha256, limit_pages, created_at, deadline_ms, expires_ms, discovered)
          VALUES (${crawl.id}, 'held', ${JSON.stringify(crawl.request)}, ${crawl.payer}, ${crawl.tokenSha256}, ${crawl.limit}, ${crawl.createdAt}, ${crawl.deadlineMs}, ${crawl.expiresMs}, ${discovered})`;
        for (const seed of seeds) {
          await tx`INSERT INTO crawl_urls (crawl_id, url, depth, kind) VALUES (${crawl.id}, ${seed.url}, ${seed.depth}, ${seed.kind ?? "page"}) ON CONFLICT (crawl_id, url) DO NOTHING`;
        }
      });
    },
    async release(id, payment, paid) {
      return (
        (await sql`UPDATE crawls SET status = 'queued', payment = ${JSON.stringify(payment)}, paid = ${paid ? JSON.stringify(paid) : null}, paid_micros = ${paid?.micros ?? null}
          WHERE id = ${id} AND status = 'held'`).count > 0
      );
    },
    async drop(id) {
      await sql`DELETE FROM crawls WHERE id = ${id} AND status = 'held'`;
    },
    async get(id) {
      const [row] = await sql<RawCrawl[]>`SELECT * FROM crawls WHERE id = ${id}`;
      return row ? toCrawlRow(row) : undefined;
    },
    async claim(worker, leaseMs, nowMs, max) {
      if (max <= 0) return [];
      return (await sql.begin((tx) => claimIn(tx, worker, leaseMs, nowMs, max))) as ClaimedUrl[];
    },
    async renew(worker, untilMs) {
      return (await sql`UPDATE crawl_urls SET lease_until = ${untilMs} WHERE lease_owner = ${worker} AND state = 'leased'`).count;
    },
    async enqueue(crawlId, entries, options) {
      if (entries.length === 0 && options.robotsBlocked === 0) return 0;
      return (await sql.begin((tx) => addLinks(tx, crawlId, entries, options))) as number;
    },
    async deliver(worker, deliveries) {
      if (deliveries.length === 0) return [];
      // Crawl by crawl (each in the order given): two instances' batches lock the crawl rows in one order, never in a cycle.
      const order = deliveries.map((_, i) => i).sort((a, b) => byCrawl(deliveries[a]!.claimed.crawlId, deliveries[b]!.claimed.crawlId) || a - b);
      return (await sql.begin(async (tx) => {
        const outcomes: DeliveryOutcome[] = [];
        for (const i of order) outcomes[i] = await deliverOne(tx, worker, deliveries[i]!);
        return outcomes;
      })) as DeliveryOutcome[];
    },
    async anyActive() {
      return (await sql`SELECT 1 FROM crawls WHERE status IN ('queued', 'running') LIMIT 1`).length > 0;
    },
    async finish(nowMs, crawlId) {
      const rows = await sql.unsafe<RawCrawl[]>(
        withNow(
          `UPDATE crawls SET finished_at = $1, ${FINISH_SET_SQL}
           WHERE status IN ('queued', 'running') AND ($2::text IS NULL OR id = $2) AND ($now >= deadline_ms OR ${NOTHING_LEFT_SQL}) RETURNING *`,
          nowMs,
        ),
        [new Date(nowMs).toISOString(), crawlId ?? null],
      );
      for (const row of rows) await sql.unsafe(SKIP_LEFTOVERS_SQL.replace("$id", "$1"), [row.id]);
      return rows.map(toCrawlRow);
    },
    async cancel(id, at) {
      const cancelled =
        (await sql`UPDATE crawls SET status = 'cancelled', finished_at = ${at.toISOString()}, ${sql.unsafe(REFUND_SET_SQL)} WHERE id = ${id} AND status IN ('queued', 'running')`).count > 0;
      if (cancelled) await sql.unsafe(SKIP_LEFTOVERS_SQL.replace("$id", "$1"), [id]);
      return cancelled;
    },
    async fail(id, error, at) {
      return (
        (await sql`UPDATE crawls SET status = 'failed', finished_at = ${at.toISOString()}, error_code = ${error.code}, error_message = ${error.message}, ${sql.unsafe(REFUND_SET_SQL)} WHERE id = ${id} AND status IN ('queued', 'running')`)
          .count > 0
      );
    },
    async pages(id, afterSeq, max) {
      const rows = await sql<{ page_seq: number; result: string }[]>`SELECT page_seq, result FROM crawl_urls WHERE crawl_id = ${id} AND page_seq > ${afterSeq} ORDER BY page_seq LIMIT ${max}`;
      return rows.map((r) => ({ seq: Number(r.page_seq), result: r.result }));
    },
    async purgeExpired(nowMs) {
      return (await sql`DELETE FROM crawls WHERE expires_ms <= ${nowMs}`).count;
    },
    unrecordedRefunds: async () => (await sql.unsafe<RawCrawl[]>(UNRECORDED_REFUNDS_SQL)).map(toCrawlRow),
    async refundRecorded(id) {
      await sql`UPDATE crawls SET refund_recorded = 1 WHERE id = ${id}`;
    },
  };
}
