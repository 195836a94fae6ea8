/**
 * @module web/threads/idle-collect — a thread that goes idle collects the garbage of the work it did since
 * its last collection. An extraction thread forces collections by the weight of what it parsed (a
 * budget sized for a busy server, collection-pacing.ts); a thread that extracts a page now and then (rendered reads come
 * a few per second) would otherwise keep every page's DOM as garbage until the budget or
 * JavaScriptCore's own pacing, and its RSS with it. An idle thread's collection costs no caller
 * any time.
 */
export interface IdleCollector {
  /** Work starts: a pending idle collection is called off. */
  busy(): void;
  /** Work ended; `collected` when it ended with a collection of its own. */
  idle(collected: boolean): void;
  /** Stops the pending collection for good. */
  stop(): void;
}

export interface IdleCollectOptions {
  /** How long the thread must stay idle before it collects. */
  afterMs: number;
  collect(): void;
}

export function createIdleCollector(options: IdleCollectOptions): IdleCollector {
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Work done since the last collection. */
  let dirty = false;
  const cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return {
    busy() {
      cancel();
      dirty = true;
    },
    idle(collected) {
      cancel();
      if (collected) dirty = false;
      if (!dirty) return;
      timer = setTimeout(() => {
        timer = undefined;
        dirty = false;
        options.collect();
      }, options.afterMs);
    },
    stop: cancel,
  };
}
