/**
 * @module web/threads/thread-pool — a small pool of Bun Workers for synchronous work that must not hold the
 * server's event loop (HTML extraction, PDF text). Work waits in one queue; a thread gets the next
 * item only when it answers, so nothing waits behind a slow item on a busy thread. The first thread
 * starts on first use, more (up to `size`) when work keeps waiting for one; one that dies fails its
 * item and is replaced by the next item. ApiErrors thrown on a thread come back with the same code,
 * message and details (see thread-worker.ts).
 *
 * Room web/threads/: worker threads that keep extraction and PDF reading off the server's event loop (pools, workers, collection pacing). It imports extract/'s and pdf/'s entries, fetch/'s charset decoding and bot-challenge check (extract-page.ts) and web/text/.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ApiError, errorCodes } from "../../errors.ts";
import { type RuntimeWorker, refWorker, startWorker, unrefWorker } from "../../runtime/workers.ts";
import type { ThreadReply } from "./thread-worker.ts";

export interface ThreadPoolOptions<I> {
  /** The worker's file beside this module (src/web/NAME); scripts/build.ts bundles it as web/NAME. */
  entry: string;
  /** Threads at most (at least 1). */
  size: number;
  /**
   * A thread beyond the first starts only once work has waited this long for a free thread (default
   * 0: as soon as it waits). Each thread costs its own runtime and modules (an extraction thread
   * ~25 MiB), which a server that seldom has two items at once should not pay.
   */
  startAfterWaitMs?: number;
  /**
   * Items that make a thread's heap grow far beyond the rest (a large page's DOM) run only on the
   * first thread, so one thread holds that high-water mark and the others stay at the size small
   * items need; small items take the other threads first. Without it every thread in turn grows.
   */
  isLarge?(input: I): boolean;
  /**
   * Milliseconds a thread beyond the first may stay idle before it ends (0 or absent: never); the
   * next backlog starts it again. Each costs ~23 MiB of RSS idle (scripts/bench/soak.ts).
   */
  retireIdleAfterMs?: number;
  /**
   * Milliseconds the last thread may stay idle, once it is the only one, before it ends too (0 or absent: never);
   * the next item starts a thread again and pays its start (extract-pool.ts DEFAULT_RETIRE_LAST_IDLE_AFTER_MS).
   */
  retireLastIdleAfterMs?: number;
  /** Names the work in errors ("extraction", "PDF extraction"). */
  label: string;
  /** The message that hands `input` to a thread, numbered `id`. */
  message(input: I, id: number): { id: number };
  /** What the message moves to the thread rather than copies (e.g. a page's bytes); the caller's copy is left empty. */
  transfer?(input: I): Transferable[];
}

export interface ThreadPool<I, R> {
  readonly size: number;
  run(input: I): Promise<R>;
  /** Threads running now. */
  started(): number;
  /** Terminates every thread; queued and later work rejects. */
  close(): Promise<void>;
}


interface Item<I, R> {
  input: I;
  /** performance.now() when it was queued. */
  queuedAt: number;
  resolve(result: R): void;
  reject(error: Error): void;
}

interface Thread<I, R> {
  worker: RuntimeWorker;
  /** The one item this thread is working on, with its message id. */
  busy: (Item<I, R> & { id: number }) | undefined;
  /** Pending while the thread idles and may end for it (retireIdleAfterMs). */
  idleTimer?: ReturnType<typeof setTimeout>;
}

/**
 * From source the entry is the file beside this one; in the JS bundle Deno runs (scripts/build-deno.ts)
 * it is web/threads/NAME.js below the bundle's root, where this module's chunk lies; in the compiled
 * binary (build root src/) Bun resolves a relative specifier against its embedded file system, where
 * it is web/threads/NAME.
 */
function workerEntry(name: string): string {
  const beside = new URL(`./${name}`, import.meta.url);
  if (beside.protocol === "file:" && existsSync(fileURLToPath(beside))) return beside.href;
  const bundled = new URL(`./web/threads/${name.replace(/\.ts$/, ".js")}`, import.meta.url);
  if (bundled.protocol === "file:" && existsSync(fileURLToPath(bundled))) return bundled.href;
  return `./web/threads/${name}`;
}

export function createThreadPool<I, R>(options: ThreadPoolOptions<I>): ThreadPool<I, R> {
  const size = Math.max(1, Math.floor(options.size));
  const entry = workerEntry(options.entry);
  const threads: Thread<I, R>[] = [];
  const queue: Item<I, R>[] = [];
  let nextId = 1;
  let closed = false;
  const startAfterWaitMs = Math.max(0, options.startAfterWaitMs ?? 0);
  /** Pending while work waits and another thread may start if the wait lasts. */
  let startTimer: ReturnType<typeof setTimeout> | undefined;

  function toError(reply: Extract<ThreadReply<R>, { ok: false }>): Error {
    if (reply.code !== undefined && reply.code in errorCodes) {
      return new ApiError(reply.code, { message: reply.message, ...(reply.details ? { details: reply.details } : {}) });
    }
    return new Error(`${options.label} failed: ${reply.message}`);
  }

  const retireIdleAfterMs = Math.max(0, options.retireIdleAfterMs ?? 0);

  function retire(thread: Thread<I, R>, reason: string): void {
    clearTimeout(thread.idleTimer);
    const index = threads.indexOf(thread);
    if (index < 0) return;
    threads.splice(index, 1);
    const item = thread.busy;
    thread.busy = undefined;
    item?.reject(new Error(`${options.label} thread stopped: ${reason}`));
    thread.worker.terminate();
    pump();
  }

  function startThread(): Thread<I, R> {
    const worker = startWorker(entry);
    const thread: Thread<I, R> = { worker, busy: undefined };
    worker.onmessage = (event: MessageEvent<ThreadReply<R>>) => {
      const reply = event.data;
      const item = thread.busy;
      if (!item || item.id !== reply.id) return;
      thread.busy = undefined;
      unrefWorker(worker);
      if (reply.ok) item.resolve(reply.result);
      else item.reject(toError(reply));
      pump();
      if (!thread.busy) armIdleTimer(thread);
    };
    worker.onerror = (event: ErrorEvent) => retire(thread, event.message || "worker error");
    worker.addEventListener("close", () => retire(thread, "worker exited"));
    unrefWorker(worker);
    threads.push(thread);
    return thread;
  }

  const retireLastIdleAfterMs = Math.max(0, options.retireLastIdleAfterMs ?? 0);

  /** A thread beyond the first that stays idle `retireIdleAfterMs` ends; the first, once alone, after `retireLastIdleAfterMs`. */
  function armIdleTimer(thread: Thread<I, R>): void {
    if (closed) return;
    const first = threads.indexOf(thread) === 0;
    const after = first ? retireLastIdleAfterMs : retireIdleAfterMs;
    clearTimeout(thread.idleTimer);
    if (after === 0) return;
    thread.idleTimer = setTimeout(() => {
      thread.idleTimer = undefined;
      if (thread.busy) return;
      const index = threads.indexOf(thread);
      if (index > 0 || (index === 0 && threads.length === 1)) retire(thread, "idle");
      // The first thread outlasted another that is still running: it waits again, as the first, alone or not.
      else if (index === 0) armIdleTimer(thread);
    }, after);
    (thread.idleTimer as { unref?(): void }).unref?.();
  }

  /** Another thread (up to `size`) for work that waits: at once, or once the oldest item has waited `startAfterWaitMs`. */
  function threadForWaitingWork(): Thread<I, R> | undefined {
    if (threads.length >= size) return undefined;
    if (threads.length === 0 || startAfterWaitMs === 0) return startThread();
    armStartTimer();
    return undefined;
  }

  function armStartTimer(): void {
    const oldest = queue[0];
    if (startTimer || !oldest) return;
    const left = Math.max(0, oldest.queuedAt + startAfterWaitMs - performance.now());
    startTimer = setTimeout(() => {
      startTimer = undefined;
      if (closed || threads.length >= size || queue.length === 0) return;
      // The item that armed the timer may have gone to a thread since: wait out the one now oldest.
      if (performance.now() - (queue[0] as Item<I, R>).queuedAt < startAfterWaitMs) return armStartTimer();
      startThread();
      pump();
    }, left);
  }

  /** A free thread that may take `item` (starting one when the pool may grow), or undefined. */
  function threadFor(item: Item<I, R>): Thread<I, R> | undefined {
    if (options.isLarge?.(item.input)) {
      const first = threads[0];
      return first ? (first.busy ? undefined : first) : threadForWaitingWork();
    }
    // The first thread last: it is the one large items wait for.
    for (let i = threads.length - 1; i >= 0; i--) if (!threads[i]!.busy) return threads[i];
    return threadForWaitingWork();
  }

  /** Hands queued items, oldest first, to free threads that may take them (starting threads up to `size`). */
  function pump(): void {
    while (!closed && queue.length > 0) {
      let index = -1;
      let free: Thread<I, R> | undefined;
      for (let i = 0; i < queue.length && !free; i++) {
        free = threadFor(queue[i]!);
        if (free) index = i;
      }
      if (!free) return;
      const item = queue.splice(index, 1)[0] as Item<I, R>;
      const id = nextId++;
      clearTimeout(free.idleTimer);
      free.busy = { ...item, id };
      refWorker(free.worker);
      const message = options.message(item.input, id);
      const transfer = options.transfer?.(item.input);
      if (transfer?.length) free.worker.postMessage(message, transfer);
      else free.worker.postMessage(message);
    }
  }

  return {
    size,
    started: () => threads.length,
    run(input) {
      if (closed) return Promise.reject(new Error(`the ${options.label} pool is closed`));
      return new Promise<R>((resolve, reject) => {
        queue.push({ input, queuedAt: performance.now(), resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      clearTimeout(startTimer);
      for (const item of queue.splice(0)) item.reject(new Error(`the ${options.label} pool is closed`));
      for (const thread of [...threads]) retire(thread, "pool closed");
    },
  };
}
