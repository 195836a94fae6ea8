/** What the crawl tests share: a crawl put straight into a store (held, then released as a settled payment would), a worker on it, and a wait for its end. */
import { randomBytes } from "node:crypto";
import type { CrawlRequest } from "../../src/crawl/crawl-schemas.ts";
import type { CrawlPaid, CrawlRow, CrawlStore, FrontierEntry } from "../../src/crawl/crawl-store.ts";
import { type CrawlWorker, type CrawlWorkerDeps, createCrawlWorker } from "../../src/crawl/crawl-worker.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { createWebEngine, type WebEngine } from "../../src/web/engine.ts";

export const USER_AGENT = "Tollbooth/0.1 (+https://tollbooth.example/contact)";

export const loopbackEngine = (): WebEngine => createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true });

/** A running crawl of `request` from its start page (links only unless the request says otherwise); its id. */
export async function startStoredCrawl(store: CrawlStore, request: CrawlRequest, options: { deadlineMs?: number; paid?: CrawlPaid } = {}): Promise<string> {
  const id = `crawl_${randomBytes(16).toString("hex")}`;
  const now = Date.now();
  const seeds: FrontierEntry[] = [
    ...(request.sitemap === "only" ? [] : [{ url: new URL(request.url).href, depth: 0 }]),
    ...(request.sitemap === "skip" ? [] : [{ url: `sitemaps:${new URL(request.url).origin}`, depth: 0, kind: "sitemaps" as const }]),
  ];
  await store.create(
    { id, request, payer: null, limit: request.limit ?? 100, createdAt: new Date(now).toISOString(), deadlineMs: now + (options.deadlineMs ?? 600_000), expiresMs: now + 3_600_000 },
    seeds,
  );
  await store.release(id, { network: null, transaction: null }, options.paid);
  return id;
}

export function startWorker(store: CrawlStore, web: WebEngine, options: Partial<CrawlWorkerDeps["options"]> = {}, extra: Partial<CrawlWorkerDeps> = {}): CrawlWorker {
  const worker = createCrawlWorker({
    store,
    web,
    log: createMemoryLogger(),
    now: () => new Date(),
    options: { lanes: 3, perHost: 4, hostDelayMs: 0, leaseMs: 5_000, idleMs: 30, ...options },
    ...extra,
  });
  worker.start();
  return worker;
}

export async function crawlEnd(store: CrawlStore, id: string, timeoutMs = 30_000): Promise<CrawlRow> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const row = await store.get(id);
    if (row && !["held", "queued", "running"].includes(row.status)) return row;
    if (Date.now() > until) throw new Error(`crawl still ${row?.status} after ${timeoutMs} ms: ${JSON.stringify(row?.counts)}`);
    await Bun.sleep(30);
  }
}
