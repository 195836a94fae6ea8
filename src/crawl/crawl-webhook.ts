/**
 * @module crawl/crawl-webhook — web/crawl's optional webhook: a POST per delivered page and one when
 * the crawl completes or fails, signed with the evidence key (a detached JWS over the exact body in
 * `Tollbooth-Signature`; the receiver checks it with /.well-known/jwks.json). The address is vetted
 * by the SSRF guard before every POST and redirects are not followed. Each event is retried with
 * backoff; sending runs beside the crawl and never holds it up (a full queue drops the oldest).
 */
import type { EvidenceKeys } from "../evidence/key-file.ts";
import { jose } from "../evidence/jose-lazy.ts";
import type { Logger } from "../log.ts";
import { type Resolver, vetTarget } from "../web/fetch/target-guard.ts";
import { sleep } from "./crawl-politeness.ts";
import { refundDueOf } from "./crawl-refund.ts";
import type { CrawlRow } from "./crawl-store.ts";
import type { CrawlEvents } from "./crawl-worker.ts";

export const WEBHOOK_SIGNATURE_HEADER = "Tollbooth-Signature";
export const webhookJwsType = "tollbooth-crawl-event+jws";

export interface CrawlWebhookOptions {
  readonly keys: EvidenceKeys;
  readonly log: Logger;
  readonly now: () => Date;
  readonly allowLoopbackTargets: boolean;
  readonly resolver?: Resolver;
  /** Delays before each retry (default 1, 4, 16 and 64 s). */
  readonly retryDelaysMs?: readonly number[];
  readonly timeoutMs?: number;
  /** Events waiting or in flight at most (default 10,000). */
  readonly maxQueued?: number;
  readonly fetch?: typeof fetch;
}

export interface CrawlWebhooks extends CrawlEvents {
  /** Resolves when nothing is waiting or in flight (tests). */
  idle(): Promise<void>;
  stop(): void;
}

/** Signs `body` as a detached compact JWS (`protected..signature`) with the current evidence key. */
export async function signWebhookBody(keys: EvidenceKeys, body: string): Promise<string> {
  const { CompactSign } = await jose();
  const signing = await keys.current();
  const jws = await new CompactSign(new TextEncoder().encode(body)).setProtectedHeader({ alg: "EdDSA", typ: webhookJwsType, kid: signing.kid }).sign(signing.key);
  const [header, , signature] = jws.split(".");
  return `${header}..${signature}`;
}

const statusOf = (crawl: CrawlRow) => ({ crawl_id: crawl.id, status: crawl.status, counts: crawl.counts, ...(crawl.error ? { error: crawl.error } : {}), ...refundDueOf(crawl) });

export function createCrawlWebhooks(options: CrawlWebhookOptions): CrawlWebhooks {
  const retryDelays = options.retryDelaysMs ?? [1_000, 4_000, 16_000, 64_000];
  const maxQueued = options.maxQueued ?? 10_000;
  const send = options.fetch ?? fetch;
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();

  async function postOnce(url: string, body: string): Promise<boolean> {
    await vetTarget(url, { allowLoopbackTargets: options.allowLoopbackTargets, ...(options.resolver ? { resolver: options.resolver } : {}) });
    const response = await send(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/json", [WEBHOOK_SIGNATURE_HEADER]: await signWebhookBody(options.keys, body) },
      body,
      signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]),
    });
    await response.body?.cancel();
    return response.status >= 200 && response.status < 300;
  }

  async function deliver(url: string, body: string, what: string): Promise<void> {
    for (let attempt = 0; attempt <= retryDelays.length && !stopping.signal.aborted; attempt++) {
      if (attempt > 0) await sleep(retryDelays[attempt - 1]!, stopping.signal).catch(() => undefined);
      try {
        if (await postOnce(url, body)) return;
      } catch (error) {
        // A refused address stays refused: no retry.
        if ((error as { code?: string }).code === "TARGET_NOT_PUBLIC" || (error as { code?: string }).code === "URL_NOT_ALLOWED") {
          options.log.warn("crawl webhook refused by the SSRF guard", { event: what, error: (error as Error).message });
          return;
        }
      }
    }
    options.log.warn("crawl webhook not delivered after its retries", { event: what });
  }

  function enqueue(crawl: CrawlRow, event: Record<string, unknown>): void {
    const url = crawl.request.webhook;
    if (url === undefined || stopping.signal.aborted) return;
    if (inFlight.size >= maxQueued) {
      options.log.warn("crawl webhook queue full: event dropped", { crawl_id: crawl.id, event: String(event.event) });
      return;
    }
    const body = JSON.stringify({ ...event, crawl_id: crawl.id, sent_at: options.now().toISOString() });
    const task = deliver(url, body, String(event.event)).finally(() => inFlight.delete(task));
    inFlight.add(task);
  }

  return {
    page: (crawl, page) => enqueue(crawl, { event: "page", seq: page.seq, page: page.result }),
    ended: (crawl) => enqueue(crawl, { event: crawl.status === "failed" ? "failed" : "completed", ...statusOf(crawl) }),
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    stop() {
      stopping.abort(new Error("crawl webhooks stopping"));
    },
  };
}
