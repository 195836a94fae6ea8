/**
 * @module web/host-slots — at most N requests in flight to one host: a batch of reads waits for a
 * free slot on its URL's host before it fetches, so a list of URLs on one site (search results,
 * a batch) never opens more than N connections to it at once.
 */

export interface HostSlots {
  /** Waits for a free slot on `url`'s host; the function returned frees it. */
  take(url: string): Promise<() => void>;
}

export function createHostSlots(perHost: number): HostSlots {
  const busy = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  const hostOf = (url: string) => {
    try {
      return new URL(url).host.toLowerCase();
    } catch {
      return url;
    }
  };
  return {
    async take(url) {
      const host = hostOf(url);
      while ((busy.get(host) ?? 0) >= perHost) {
        await new Promise<void>((wake) => waiting.set(host, [...(waiting.get(host) ?? []), wake]));
      }
      busy.set(host, (busy.get(host) ?? 0) + 1);
      let freed = false;
      return () => {
        if (freed) return;
        freed = true;
        const left = (busy.get(host) ?? 1) - 1;
        if (left === 0) busy.delete(host);
        else busy.set(host, left);
        const queue = waiting.get(host);
        const next = queue?.shift();
        if (queue?.length === 0) waiting.delete(host);
        next?.();
      };
    },
  };
}
