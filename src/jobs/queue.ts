/**
 * @module jobs/queue — first in, first out, at most `concurrency` running at once. Knows job
 * ids only; what running one means is the worker's business.
 */

export interface JobQueue {
  enqueue(id: string): void;
  /** Jobs waiting to start. */
  waiting(): number;
  /** Jobs running now. */
  running(): number;
  /** Starts nothing more; waiting ids are dropped (they stay queued in the store). */
  stop(): void;
}

export function createJobQueue(options: { concurrency: number; run: (id: string) => Promise<void> }): JobQueue {
  const waiting: string[] = [];
  let running = 0;
  let stopped = false;

  const pump = () => {
    while (!stopped && running < options.concurrency && waiting.length > 0) {
      const id = waiting.shift()!;
      running++;
      void options
        .run(id)
        .catch(() => {})
        .finally(() => {
          running--;
          pump();
        });
    }
  };

  return {
    enqueue(id) {
      if (stopped) return;
      waiting.push(id);
      pump();
    },
    waiting: () => waiting.length,
    running: () => running,
    stop() {
      stopped = true;
      waiting.length = 0;
    },
  };
}
