/**
 * @module http/free-tally — the free documents answered without a log line of their own (the
 * default `--log-requests calls`): counted by path and written as one line a minute, and once
 * more when the server stops, so a busy /health probe costs a counter, not a line.
 */
import type { Logger } from "../log.ts";

export interface FreeTally {
  /** One successful answer of the free document at `path`. */
  count(path: string): void;
  /** Writes the counts gathered since the last line (nothing when there are none). */
  flush(): void;
  /** Stops the minute timer after a last flush. */
  stop(): void;
}

const freeTallyEveryMs = 60_000;

export function createFreeTally(log: Logger, everyMs = freeTallyEveryMs): FreeTally {
  let served = new Map<string, number>();
  let since = Date.now();
  const flush = () => {
    const now = Date.now();
    if (served.size > 0) {
      log.info("free documents served", { period_sec: Math.round((now - since) / 1000), served: Object.fromEntries(served) });
      served = new Map();
    }
    since = now;
  };
  const timer = setInterval(flush, everyMs);
  timer.unref?.();
  return {
    count(path) {
      served.set(path, (served.get(path) ?? 0) + 1);
    },
    flush,
    stop() {
      clearInterval(timer);
      flush();
    },
  };
}
