/**
 * @module web/batch — reads a list of URLs with bounded concurrency, and at most a few at a time
 * on any one host; results keep input order and failures become inline errors (spec web-evidence
 * §2.3, §2.4, §7 rule 2).
 */
import { toApiError } from "../errors.ts";
import type { ReadInput, WebEngine } from "./engine.ts";
import { createHostSlots } from "./host-slots.ts";
import type { InlineError, ReadResult } from "./read-result.ts";

/** spec §8: urls per call. */
export const MAX_BATCH_URLS = 10;
const DEFAULT_CONCURRENCY = 4;
/** Reads of one batch in flight to one host at once. */
export const DEFAULT_PER_HOST = 2;

export type BatchItem = ReadResult | InlineError;

/** Reads every URL with the same options; never throws for a single URL's failure. */
export async function readBatch(
  engine: WebEngine,
  urls: readonly string[],
  input: Omit<ReadInput, "url">,
  signal: AbortSignal,
  options: { concurrency?: number; perHost?: number; maxUrls?: number } = {},
): Promise<BatchItem[]> {
  const maxUrls = options.maxUrls ?? MAX_BATCH_URLS;
  if (urls.length > maxUrls) throw new RangeError(`readBatch takes at most ${maxUrls} URLs`);
  const results: BatchItem[] = new Array(urls.length);
  const slots = createHostSlots(options.perHost ?? DEFAULT_PER_HOST);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < urls.length; index = next++) {
      const url = urls[index] as string;
      const free = await slots.take(url);
      try {
        results[index] = await engine.read({ ...input, url }, signal);
      } catch (error) {
        const apiError = toApiError(error);
        results[index] = { ok: false, url, error: apiError.code, status: apiError.status, message: apiError.message };
      } finally {
        free();
      }
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, urls.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
