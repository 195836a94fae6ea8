/**
 * @module web/extract-pool — HTML extraction on a small pool of Bun Workers, so the server's
 * thread only fetches and answers while extraction (synchronous, ~16 ms a page) uses every
 * core (queueing and threads: thread-pool.ts). Each thread runs `extractHtmlSync` with its own
 * happy-dom window; results are the same objects the in-thread path returns. What is particular
 * to extraction is here: when a thread collects its garbage.
 */
import { availableParallelism } from "node:os";
import type { ExtractHtmlInput, HtmlExtraction } from "./extract.ts";
import type { ExtractRequest } from "./extract-pool-protocol.ts";
import { createThreadPool } from "./thread-pool.ts";

/** What the engine calls to extract a page: the pool's `extract`, or `extractHtml` in-thread. */
export type HtmlExtractor = (input: ExtractHtmlInput) => Promise<HtmlExtraction>;

export interface ExtractPoolOptions {
  /** Threads (at least 1). */
  size: number;
  /**
   * Characters of HTML a thread extracts between two full garbage collections (0: never forced).
   * A happy-dom page costs ~125 bytes of heap per character of HTML (a 650K-character page: 80 MB)
   * and every page's DOM outlives JavaScriptCore's quick young-generation collections, so a worker
   * left to its own pacing grew to ~500 MB of RSS. A page that would take a thread past the budget
   * is extracted after a collection, not on top of the garbage of the pages before it; a thread
   * past the budget collects after answering. Counting pages instead (every 5) left one large page
   * on top of four pages of garbage, and collected small pages as often as large ones. 800K, not
   * 400K: on the 16-client bench the same peak RSS (345 vs 343 MB) and fewer full collections
   * (17.1 vs 19.4 ms of CPU per read, 109 vs 97 reads/s).
   */
  collectAfterChars?: number;
  /**
   * Milliseconds a page waits for a free thread before another thread starts (see
   * DEFAULT_START_AFTER_WAIT_MS).
   */
  startAfterWaitMs?: number;
}

/**
 * A second thread starts once a page has waited 100 ms for one: a backlog, not one page arriving
 * while another is extracted or a thread collects. Rendered reads (a few a second) then keep to one
 * thread; on the render bench a second one added 25-30 MiB to the service's peak RSS.
 */
export const DEFAULT_START_AFTER_WAIT_MS = 100;

/** Default characters of HTML between forced collections on a thread (see collectAfterChars). */
export const DEFAULT_COLLECT_AFTER_CHARS = 800_000;

export interface ExtractPool {
  readonly size: number;
  extract: HtmlExtractor;
  /** Threads started so far (the first on first use, another when pages wait; see startAfterWaitMs). */
  started(): number;
  /** Terminates every thread; pending and later extractions reject. */
  close(): Promise<void>;
}

export interface CollectionPlan {
  /** Collect before extracting this page (it would take the thread past the budget). */
  before: boolean;
  /** Collect after answering (the thread reached the budget). */
  after: boolean;
  /** Characters counted since the last collection once this page is done. */
  since: number;
}

/** When a thread collects around a page of `length` characters, `since` characters after its last collection. */
export function planCollections(since: number, length: number, budget: number): CollectionPlan {
  if (budget <= 0) return { before: false, after: false, since: 0 };
  const before = since > 0 && since + length > budget;
  const counted = (before ? 0 : since) + length;
  return counted >= budget ? { before, after: true, since: 0 } : { before, after: false, since: counted };
}

/** Default pool size: one thread per core. */
export function defaultExtractThreads(): number {
  return Math.max(1, availableParallelism());
}

export function createExtractPool(options: ExtractPoolOptions): ExtractPool {
  const budget = options.collectAfterChars ?? DEFAULT_COLLECT_AFTER_CHARS;
  const pool = createThreadPool<ExtractHtmlInput, HtmlExtraction, { sinceCollect: number }>({
    entry: "extract-worker.ts",
    size: options.size,
    startAfterWaitMs: options.startAfterWaitMs ?? DEFAULT_START_AFTER_WAIT_MS,
    label: "extraction",
    newState: () => ({ sinceCollect: 0 }),
    message(input, id, state) {
      const request: ExtractRequest = { id, html: input.html, url: input.url, markdown: input.markdown };
      if (input.selector !== undefined) request.selector = input.selector;
      const plan = planCollections(state.sinceCollect, input.html.length, budget);
      state.sinceCollect = plan.since;
      if (plan.before) request.collectBefore = true;
      if (plan.after) request.collect = true;
      return request;
    },
  });
  return { size: pool.size, extract: pool.run, started: pool.started, close: pool.close };
}
