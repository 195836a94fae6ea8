/**
 * @module web/extract-pool — HTML extraction on a small pool of Bun Workers, so the server's
 * thread only fetches and answers while extraction (synchronous, ~16 ms a page) uses every
 * core. Each thread runs `extractHtmlSync` with its own happy-dom window; results are the same
 * objects the in-thread path returns. Pages wait in one queue and a thread takes the next when it
 * answers (none waits behind a slow page on a busy thread). Threads start on first use; one that
 * dies is replaced.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { ApiError, errorCodes } from "../errors.ts";
import type { ExtractHtmlInput, HtmlExtraction } from "./extract.ts";
import type { ExtractReply, ExtractRequest } from "./extract-pool-protocol.ts";

/** What the engine calls to extract a page: the pool's `extract`, or `extractHtml` in-thread. */
export type HtmlExtractor = (input: ExtractHtmlInput) => Promise<HtmlExtraction>;

export interface ExtractPoolOptions {
  /** Threads (at least 1). */
  size: number;
  /** Bun's small-heap mode for each thread (less memory, more frequent GC). */
  smol?: boolean;
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
}

/** Default characters of HTML between forced collections on a thread (see collectAfterChars). */
export const DEFAULT_COLLECT_AFTER_CHARS = 800_000;

export interface ExtractPool {
  readonly size: number;
  extract: HtmlExtractor;
  /** Threads started so far (they start on first use). */
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

/**
 * The worker's entry. From source it is the file beside this one; in the compiled binary
 * (scripts/build.ts lists it as an entry point, build root src/) Bun resolves a relative specifier
 * against its embedded file system, where the worker is web/extract-worker.
 */
function workerEntry(): string {
  const beside = new URL("./extract-worker.ts", import.meta.url);
  if (beside.protocol === "file:" && existsSync(fileURLToPath(beside))) return beside.href;
  return "./web/extract-worker.ts";
}

interface Task {
  input: ExtractHtmlInput;
  resolve(result: HtmlExtraction): void;
  reject(error: Error): void;
}

/** Bun's Worker also has ref/unref (the DOM typings in scope do not say so). */
type BunWorker = Worker & { ref(): void; unref(): void };

interface Thread {
  worker: BunWorker;
  /** The one page this thread is extracting (a thread gets the next page only when it answers). */
  busy: (Task & { id: number }) | undefined;
  /** Characters of HTML sent since the last forced collection. */
  sinceCollect: number;
}

function toError(reply: Extract<ExtractReply, { ok: false }>): Error {
  if (reply.code !== undefined && reply.code in errorCodes) return new ApiError(reply.code, { message: reply.message });
  return new Error(`extraction failed: ${reply.message}`);
}

export function createExtractPool(options: ExtractPoolOptions): ExtractPool {
  const size = Math.max(1, Math.floor(options.size));
  const budget = options.collectAfterChars ?? DEFAULT_COLLECT_AFTER_CHARS;
  const entry = workerEntry();
  const threads: Thread[] = [];
  const queue: Task[] = [];
  let nextId = 1;
  let closed = false;

  function retire(thread: Thread, reason: string): void {
    const index = threads.indexOf(thread);
    if (index >= 0) threads.splice(index, 1);
    const task = thread.busy;
    thread.busy = undefined;
    task?.reject(new Error(`extraction thread stopped: ${reason}`));
    thread.worker.terminate();
    pump();
  }

  function startThread(): Thread {
    const worker = new Worker(entry, options.smol ? ({ smol: true } as WorkerOptions) : {}) as BunWorker;
    const thread: Thread = { worker, busy: undefined, sinceCollect: 0 };
    worker.onmessage = (event: MessageEvent<ExtractReply>) => {
      const reply = event.data;
      const task = thread.busy;
      if (!task || task.id !== reply.id) return;
      thread.busy = undefined;
      worker.unref();
      if (reply.ok) task.resolve(reply.result);
      else task.reject(toError(reply));
      pump();
    };
    worker.onerror = (event: ErrorEvent) => retire(thread, event.message || "worker error");
    worker.addEventListener("close", () => retire(thread, "worker exited"));
    worker.unref();
    threads.push(thread);
    return thread;
  }

  function send(thread: Thread, task: Task): void {
    const id = nextId++;
    thread.busy = { ...task, id };
    const { input } = task;
    const request: ExtractRequest = { id, html: input.html, url: input.url, markdown: input.markdown };
    if (input.selector !== undefined) request.selector = input.selector;
    const plan = planCollections(thread.sinceCollect, input.html.length, budget);
    thread.sinceCollect = plan.since;
    if (plan.before) request.collectBefore = true;
    if (plan.after) request.collect = true;
    thread.worker.ref();
    thread.worker.postMessage(request);
  }

  /** Hands queued pages to free threads (starting threads up to `size`). */
  function pump(): void {
    while (!closed && queue.length > 0) {
      const free = threads.find((thread) => !thread.busy) ?? (threads.length < size ? startThread() : undefined);
      if (!free) return;
      send(free, queue.shift() as Task);
    }
  }

  return {
    size,
    started: () => threads.length,
    extract(input) {
      if (closed) return Promise.reject(new Error("the extraction pool is closed"));
      return new Promise<HtmlExtraction>((resolve, reject) => {
        queue.push({ input, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new Error("the extraction pool is closed"));
      for (const thread of [...threads]) retire(thread, "pool closed");
    },
  };
}
