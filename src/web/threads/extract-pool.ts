/**
 * @module web/threads/extract-pool — HTML extraction on a small pool of Bun Workers, so the server's
 * thread only fetches and answers while extraction (synchronous, a few ms a page) uses every
 * core (queueing and threads: thread-pool.ts). Each thread runs `extractHtmlSync`; results are the
 * same objects the in-thread path returns. Each thread forces
 * its own garbage collections (extract-worker.ts, collection-pacing.ts) at the budget set here.
 */
import { availableParallelism } from "node:os";
import type { ExtractRequest } from "./extract-pool-protocol.ts";
import { type ExtractPageInput, type PageExtraction, pageSize } from "./extract-page.ts";
import { createThreadPool } from "./thread-pool.ts";

/** What the engine calls to extract a page: the pool's `extract`, or `extractPageSync` in-thread. */
export type HtmlExtractor = (input: ExtractPageInput) => Promise<PageExtraction>;

export interface ExtractPoolOptions {
  /** Threads (at least 1). */
  size: number;
  /**
   * Characters of HTML a thread extracts between two forced full garbage collections (0: never
   * forced; why: collection-pacing.ts). Counting pages instead (every 5) left one large page on top of
   * four pages of garbage, and collected small pages as often as large ones.
   */
  collectBudget?: number;
  /**
   * Milliseconds a thread stays idle after a page before it collects (0: never; see
   * DEFAULT_IDLE_COLLECT_AFTER_MS).
   */
  idleCollectAfterMs?: number;
  /**
   * Characters of HTML a thread extracts, since it last shrank, after which it also throws away its compiled code
   * once it has idled `idleShrinkAfterMs` (0: never; see DEFAULT_IDLE_SHRINK_AFTER_CHARS).
   */
  idleShrinkAfterChars?: number;
  idleShrinkAfterMs?: number;
  /** Characters of HTML from which a page is followed by a collection that gives its memory back (0: never; see DEFAULT_GIVE_BACK_AFTER_CHARS). */
  giveBackAfterChars?: number;
  /**
   * Milliseconds a page waits for a free thread before another thread starts (see
   * DEFAULT_START_AFTER_WAIT_MS).
   */
  startAfterWaitMs?: number;
  /** Milliseconds a thread beyond the first stays idle before it ends (0: never; see DEFAULT_RETIRE_IDLE_AFTER_MS). */
  retireIdleAfterMs?: number;
  /** Milliseconds the last thread, alone, stays idle before it ends too (0: never; see DEFAULT_RETIRE_LAST_IDLE_AFTER_MS). */
  retireLastIdleAfterMs?: number;
}

/**
 * A second thread starts once a page has waited 100 ms for one: a backlog, not one page arriving
 * while another is extracted or a thread collects. Rendered reads (a few a second) then keep to one
 * thread; on the render bench a second one added 25-30 MiB to the service's peak RSS.
 */
export const DEFAULT_START_AFTER_WAIT_MS = 100;

/**
 * A thread beyond the first that has had no page for 3 s ends, and the next backlog starts it again
 * (~0.1 s of a core to start): a server whose load has passed gives back that thread's runtime and heap.
 * Soak with the binary, 30 s of mixed reads, RSS 5 s after: 138 MiB with two threads left idle, 115 MiB
 * with one thread (scripts/bench/soak.ts measures the same point).
 */
export const DEFAULT_RETIRE_IDLE_AFTER_MS = 3_000;

/**
 * The last thread ends too once the server has extracted nothing for this long: an idle server gives back its
 * runtime and heap, and the next read starts a thread again and pays for it. Binary, 20 dev-set reads, then 3.5 s
 * quiet before each of five reads (retiring after 2 s against never, shared machine): RSS idle 87-91 against
 * 104-106 MiB; that first read 75-137 ms (once 1.3 s under load) against 7-20 ms, the reads after it as warm.
 * Reads less than 30 s apart keep their thread.
 */
export const DEFAULT_RETIRE_LAST_IDLE_AFTER_MS = 30_000;

/**
 * HTML from which a page is extracted on the first thread only (ThreadPoolOptions.isLarge): a
 * ~600 KB page's DOM takes a thread's heap to several times what the rest need, and with every
 * thread taking such pages in turn each held that mark (issue 15 §5, scripts/bench/soak.ts). At
 * 128 KiB about one page in fourteen of the extraction dev set is large.
 */
export const LARGE_PAGE_CHARS = 128 * 1024;

/**
 * Long enough that a busy thread (pages every few ms) never collects for being idle, short enough
 * that a thread serving rendered reads (a few a second) collects between them.
 */
export const DEFAULT_IDLE_COLLECT_AFTER_MS = 250;

/**
 * A thread that idles after a load shrinks: runtime/memory.ts shrinkFootprint throws away the code it compiled and
 * gives back the heap it kept. With the memory valve's shrink on the server's thread, soak.ts --minutes 3 --binary
 * beside main's binary, shared machine: RSS 5 s after the load 112-116 against 132-135 MiB, 35 s after 83 against
 * 104-106, the same CPU a call (3.90 against 3.93 ms); the threads' shrink alone 123 against 131 MiB.
 * A load is this much HTML with no pause of `DEFAULT_IDLE_SHRINK_AFTER_MS` (about 27 pages of the dev set):
 * shrinking after every page instead made a read that comes every 0.5-3.5 s take 40-60 ms against 11 ms and
 * 50-70 ms of CPU against 10-20, every page compiling its code again (scripts/bench/sparse-reads.ts).
 */
export const DEFAULT_IDLE_SHRINK_AFTER_CHARS = 2_000_000;

/**
 * The idle time before that shrink: longer than the idle collection's, so that a thread under load, whose pauses are
 * shorter, keeps its code (the memory valve waits as long on the server's thread). With 250 ms (the collection's
 * wait) the soak made 0.93x the reference's calls in both runs; with 1 s 1.00x, 0.93x and 0.99x (runs vary that much).
 */
export const DEFAULT_IDLE_SHRINK_AFTER_MS = 1_000;

/**
 * Default characters of HTML between forced collections on a thread (see collectBudget). One thread over
 * the dev set four times (extraction-thread-memory.ts --rounds 4, shared machine): 360K 3.56 ms of CPU a
 * page, high-water 125 MiB; 1M 3.20 ms, 130 MiB; 2M 3.08 ms, 134 MiB; never 3.51 ms, 159 MiB. Those collections
 * were Bun.gc(true); the budget's are now bun:jsc's fullGC (runtime/memory.ts collectGarbageKeepingPace), which
 * costs so little that it runs twice as often: one thread over the dev set, loaded machine, one run: 500K 7.1 ms a
 * page, high-water 140-141 MiB; 1M 6.7-6.9 ms, 145-147 MiB; Bun.gc(true) at 1M 8.8-9.9 ms, 129-133 MiB.
 */
export const DEFAULT_COLLECT_BUDGET = 500_000;

/**
 * A page of this much HTML (1 in 75 of the extraction dev set; the soak's generated ~600 KB pages) is followed at once
 * by a collection that gives its memory back (runtime/memory.ts collectGarbage) instead of the budget's, which frees it
 * but keeps it resident: such a page's tree and garbage are 8-12 MiB, on top of which the other threads' spikes (JIT
 * compilations) set the process's high-water mark. One thread over the dev set, in one process: 3.62-3.63 against
 * 3.78-3.80 ms of CPU a page, high-water 125-126 against 141-143 MiB. With the Markdown cut (markdown-prefix.ts),
 * soak.ts --minutes 3 beside main's binary: the level under load 15-24 MiB lower, peak 200 against 207 and, places
 * swapped, 196 against 210 MiB on the loaded shared machine, 215 against 223 and 207 against 226 on a quieter one
 * (the rest is the JIT's compilations at the load's start), 1.11-1.15x the calls. Giving back after every page from
 * 128K characters (1 in 14 of the dev set) cost 6-8 % of the CPU a call in the soak; gated on the process's RSS it
 * held up large reads under the 16-client read bench (docs/benchmarks.md).
 */
export const DEFAULT_GIVE_BACK_AFTER_CHARS = 400_000;

export interface ExtractPool {
  readonly size: number;
  extract: HtmlExtractor;
  /** Threads running now (the first from first use, another when pages wait, see startAfterWaitMs; one beyond the first ends when it idles, see retireIdleAfterMs). */
  started(): number;
  /** Terminates every thread; pending and later extractions reject. */
  close(): Promise<void>;
}

/** Default pool size: one thread per core. */
export function defaultExtractThreads(): number {
  return Math.max(1, availableParallelism());
}

export function createExtractPool(options: ExtractPoolOptions): ExtractPool {
  const collectBudget = options.collectBudget ?? DEFAULT_COLLECT_BUDGET;
  const idleCollectAfterMs = options.idleCollectAfterMs ?? DEFAULT_IDLE_COLLECT_AFTER_MS;
  const idleShrinkAfterChars = options.idleShrinkAfterChars ?? DEFAULT_IDLE_SHRINK_AFTER_CHARS;
  const idleShrinkAfterMs = options.idleShrinkAfterMs ?? DEFAULT_IDLE_SHRINK_AFTER_MS;
  const giveBackAfterChars = options.giveBackAfterChars ?? DEFAULT_GIVE_BACK_AFTER_CHARS;
  const pool = createThreadPool<ExtractPageInput, PageExtraction>({
    entry: "extract-worker.ts",
    size: options.size,
    startAfterWaitMs: options.startAfterWaitMs ?? DEFAULT_START_AFTER_WAIT_MS,
    retireIdleAfterMs: options.retireIdleAfterMs ?? DEFAULT_RETIRE_IDLE_AFTER_MS,
    retireLastIdleAfterMs: options.retireLastIdleAfterMs ?? DEFAULT_RETIRE_LAST_IDLE_AFTER_MS,
    label: "extraction",
    isLarge: (input) => pageSize(input) >= LARGE_PAGE_CHARS,
    message(input, id) {
      const request: ExtractRequest = { id, url: input.url, markdown: input.markdown, collectBudget, idleCollectAfterMs, idleShrinkAfterChars, idleShrinkAfterMs, giveBackAfterChars };
      if (input.html !== undefined) request.html = input.html;
      else {
        const { bytes, charset, status, headers } = input.source;
        request.bytes = bytes;
        if (charset !== undefined) request.charset = charset;
        request.status = status;
        request.headers = JSON.stringify(headers);
      }
      if (input.selector !== undefined) request.selector = input.selector;
      if (input.ignoreSelectors?.length) request.ignoreSelectors = JSON.stringify(input.ignoreSelectors);
      if (input.pageLinks) request.pageLinks = true;
      if (input.maxChars !== undefined) request.maxChars = input.maxChars;
      return request;
    },
    // The page's bytes move to the thread: the server's thread keeps no copy of the page (extract-page.ts).
    transfer: (input) => (input.source !== undefined && ownsItsBuffer(input.source.bytes) ? [input.source.bytes.buffer] : []),
  });
  return { size: pool.size, extract: pool.run, started: pool.started, close: pool.close };
}

/** Bytes that are the whole of a plain ArrayBuffer can be transferred; a view into a larger one is copied. */
function ownsItsBuffer(bytes: Uint8Array): bytes is Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}

/**
 * A small page of the usual parts (title, headings, paragraphs, a list, links, a script), extracted a few times
 * by `warmExtractPool`: the first page a thread extracts pays for its start and for compiling the extractor
 * (~300-800 ms under load, against ~10 ms once warm), which would otherwise land on the first caller.
 */
const WARM_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Warm-up page</title><meta name="description" content="A page the server reads to itself at start."></head><body><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header><main><article><h1>Warm-up page</h1><p>${"A sentence of ordinary text for the extractor to score and keep. ".repeat(6)}</p><h2>A section</h2><p>${"Another paragraph, with <a href=\"/link\">a link</a> and <em>emphasis</em>. ".repeat(5)}</p><ul><li>First point</li><li>Second point</li></ul><table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table></article></main><footer><p>Footer text.</p></footer><script>document.title = document.title;</script></body></html>`;

/** Extracts WARM_PAGE `rounds` times (text and markdown) so the first real page does not start the thread and compile the extractor; never throws. */
export async function warmExtractPool(pool: Pick<ExtractPool, "extract">, rounds = 4): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await pool.extract({ html: WARM_PAGE, url: "https://warm-up.invalid/page", markdown: round % 2 === 1 }).catch(() => undefined);
  }
}
