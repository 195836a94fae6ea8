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

/**
 * Records a batch of outcomes within `tx` in a few statements, whatever its size (see CrawlStore.deliver):
 * the URLs this worker still holds move to their state at once (the others are lost), the texts are
 * added at once (a text already known, or given earlier in the batch, makes its page a duplicate),
 * then crawl by crawl, in crawl-id order (two instances never lock crawl rows in a cycle), the links
 * enter the frontier and the counts move, which numbers the pages delivered, in the order given.
 */
async function deliverIn(tx: SqlTransaction, worker: string, deliveries: readonly ClaimDelivery[]): Promise<DeliveryOutcome[]> {
  const json = (rows: object[]) => JSON.stringify(rows);
  const moved = new Set(
    (
      await tx<{ seq: string }[]>`
        UPDATE crawl_urls u SET state = v.state, lease_owner = NULL, lease_until = NULL, not_before = COALESCE(v.not_before, u.not_before),
          budgeted = CASE WHEN v.state = 'robots' THEN 0 ELSE u.budgeted END
        FROM json_to_recordset(${json(deliveries.map(({ claimed, delivery }) => ({ seq: claimed.seq, state: DELIVERED_STATE[delivery.kind], not_before: delivery.kind === "retry" ? delivery.notBeforeMs : null })))}::text::json)
          AS v(seq bigint, state text, not_before bigint)
        WHERE u.seq = v.seq AND u.state = 'leased' AND u.lease_owner = ${worker} RETURNING u.seq`
    ).map((r) => Number(r.seq)),
  );
  const held = deliveries.filter((d) => moved.has(d.claimed.seq));
  const pages = held.filter((d) => d.delivery.kind === "page");
  const fresh = new Set<string>();
  if (pages.length > 0) {
    const added = await tx<{ crawl_id: string; sha256: string }[]>`
      INSERT INTO crawl_texts (crawl_id, sha256)
      SELECT t.crawl_id, t.sha256 FROM json_to_recordset(${json(pages.map((d) => ({ crawl_id: d.claimed.crawlId, sha256: (d.delivery as { textSha256: string }).textSha256 })))}::text::json) AS t(crawl_id text, sha256 text)
      ON CONFLICT DO NOTHING RETURNING crawl_id, sha256`;
    for (const r of added) fresh.add(`${r.crawl_id} ${r.sha256}`);
  }
  const outcomes = new Map<ClaimDelivery, DeliveryOutcome>();
  const duplicates: ClaimDelivery[] = [];
  for (const d of pages) {
    const key = `${d.claimed.crawlId} ${(d.delivery as { textSha256: string }).textSha256}`;
    // The first page of the batch with a new text takes it; a later one with the same text is a duplicate.
    if (fresh.delete(key)) continue;
    duplicates.push(d);
    outcomes.set(d, { kind: "duplicate" });
  }
  if (duplicates.length > 0) await tx`UPDATE crawl_urls SET state = 'duplicate' WHERE seq IN ${tx(duplicates.map((d) => d.claimed.seq))}`;
  const numbered: { seq: number; page_seq: number; result: string }[] = [];
  for (const crawlId of [...new Set(held.map((d) => d.claimed.crawlId))].sort(byCrawl)) {
    const mine = held.filter((d) => d.claimed.crawlId === crawlId && !outcomes.has(d));
    const delivered = mine.filter((d) => d.delivery.kind === "page" || d.delivery.kind === "error");
    const linked = delivered.flatMap((d) => (d.delivery.kind === "page" && d.delivery.links ? [d.delivery.links] : []));
    if (linked.length > 0) {
      const robotsBlocked = linked.reduce((sum, l) => sum + l.robotsBlocked, 0);
      await addLinks(tx, crawlId, linked.flatMap((l) => l.entries), { robotsBlocked, cap: linked[0]!.cap });
    }
    const count = (kind: string) => mine.filter((d) => d.delivery.kind === kind).length;
    const robots = count("robots");
    const dups = held.filter((d) => d.claimed.crawlId === crawlId && outcomes.has(d)).length;
    const [row] = await tx<{ delivered: number }[]>`
      UPDATE crawls SET fetched = fetched + ${count("page")}, failed = failed + ${count("error")}, delivered = delivered + ${delivered.length},
        duplicates = duplicates + ${dups}, used = used - ${robots}, robots_blocked = robots_blocked + ${robots}
      WHERE id = ${crawlId} RETURNING delivered`;
    let pageSeq = Number(row?.delivered ?? 0) - delivered.length;
    for (const d of delivered) {
      pageSeq++;
      numbered.push({ seq: d.claimed.seq, page_seq: pageSeq, result: (d.delivery as { result: string }).result });
      outcomes.set(d, { kind: "delivered", pageSeq });
    }
    for (const d of mine) if (!outcomes.has(d)) outcomes.set(d, { kind: d.delivery.kind === "retry" ? "requeued" : "recorded" });
  }
  if (numbered.length > 0) {
    await tx`UPDATE crawl_urls u SET page_seq = v.page_seq, result = v.result
      FROM json_to_recordset(${json(numbered)}::text::json) AS v(seq bigint, page_seq int, result text) WHERE u.seq = v.seq`;
  }
  return deliveries.map((d) => outcomes.get(d) ?? { kind: "lost" });
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
          VALUES (${crawl.id}, 'held', ${JSON.stringify(crawl.request)}, ${crawl.payer}, '', ${crawl.limit}, ${crawl.createdAt}, ${crawl.deadlineMs}, ${crawl.expiresMs}, ${discovered})`;
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
      return (await sql.begin((tx) => deliverIn(tx, worker, deliveries))) as DeliveryOutcome[];
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
