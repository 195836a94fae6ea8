/**
 * @module web/batch — reads up to 10 URLs with bounded concurrency; results keep input order and
 * failures become inline errors (spec web-evidence §2.3, §2.4, §7 rule 2).
 */
import { toApiError } from "../errors.ts";
import type { ReadInput, WebEngine } from "./engine.ts";
import type { InlineError, ReadResult } from "./read-result.ts";

/** spec §8: urls per call. */
export const MAX_BATCH_URLS = 10;
const DEFAULT_CONCURRENCY = 4;

export type BatchItem = ReadResult | InlineError;

/** Reads every URL with the same options; never throws for a single URL's failure. */
export async function readBatch(
  engine: WebEngine,
  urls: readonly string[],
  input: Omit<ReadInput, "url">,
  signal: AbortSignal,
  options: { concurrency?: number } = {},
): Promise<BatchItem[]> {
  if (urls.length > MAX_BATCH_URLS) throw new RangeError(`readBatch takes at most ${MAX_BATCH_URLS} URLs`);
  const results: BatchItem[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < urls.length; index = next++) {
      const url = urls[index] as string;
      try {
        results[index] = await engine.read({ ...input, url }, signal);
      } catch (error) {
        const apiError = toApiError(error);
        results[index] = { ok: false, url, error: apiError.code, status: apiError.status, message: apiError.message };
      }
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, urls.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
