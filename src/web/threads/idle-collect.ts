/**
 * @module web/threads/idle-collect — a thread that goes idle collects the garbage of the work it did since
 * its last collection. An extraction thread forces collections by the weight of what it parsed (a
 * budget sized for a busy server, collection-pacing.ts); a thread that extracts a page now and then (rendered reads come
 * a few per second) would otherwise keep every page's DOM as garbage until the budget or
 * JavaScriptCore's own pacing, and its RSS with it. An idle thread's collection costs no caller
 * any time. After a load (`shrink.afterWork` of work with no long pause) the idle thread also shrinks: it throws
 * away its compiled code too, which the next pages compile again, so a thread that reads a page now and then keeps
 * its code.
 */
export interface IdleCollector {
  /** Work starts (`work`: its weight, e.g. characters of HTML): a pending idle collection is called off. */
  busy(work?: number): void;
  /** Work ended; `collected` when it ended with a collection of its own (then only a shrink after a load is still due). */
  idle(collected: boolean): void;
  /** Stops the pending collection for good. */
  stop(): void;
}

export interface IdleCollectOptions {
  /** How long the thread must stay idle before it collects. */
  afterMs: number;
  collect(): void;
  /** After a load (`afterWork` of work without a pause of `afterMs`), the thread also shrinks once it has stayed idle `afterMs`. */
  shrink?: IdleShrink;
}

export interface IdleShrink {
  afterWork: number;
  /** Idle time before the shrink, counted like the collection's (longer than it: a busy thread's short pauses keep its code). */
  afterMs: number;
  run(): void;
}

export function createIdleCollector(options: IdleCollectOptions): IdleCollector {
  const { shrink } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Work done since the last collection. */
  let dirty = false;
  /** Weight of the work done since the last shrink or the last pause as long as the shrink's wait (a load's work). */
  let sinceShrink = 0;
  let idleSince = Number.NEGATIVE_INFINITY;
  const shrinkDue = () => shrink !== undefined && sinceShrink >= shrink.afterWork;
  const cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const shrinkLater = (waitMs: number) => {
    timer = setTimeout(() => {
      timer = undefined;
      dirty = false;
      sinceShrink = 0;
      shrink!.run();
    }, waitMs);
  };
  return {
    busy(work = 0) {
      cancel();
      dirty = true;
      // Work that comes after such a pause is a new load: pages read one by one never add up to a shrink.
      if (shrink && performance.now() - idleSince >= shrink.afterMs) sinceShrink = 0;
      sinceShrink += work;
    },
    idle(collected) {
      cancel();
      idleSince = performance.now();
      if (collected) dirty = false;
      // A collection of its own leaves nothing to collect, but a load's compiled code is still there to shrink.
      if (!dirty) {
        if (collected && shrinkDue()) shrinkLater(shrink!.afterMs);
        return;
      }
      if (shrinkDue() && shrink!.afterMs <= options.afterMs) return shrinkLater(shrink!.afterMs);
      timer = setTimeout(() => {
        timer = undefined;
        dirty = false;
        options.collect();
        if (shrinkDue()) shrinkLater(shrink!.afterMs - options.afterMs);
      }, options.afterMs);
    },
    stop: cancel,
  };
}
