/**
 * @module web/endpoints — what the web evidence plugin files run: single reads and batches,
 * change checks, PDF text. Thin over the engine, compare and pdf modules.
 */
import { ApiError, toApiError } from "../errors.ts";
import { readBatch } from "./batch.ts";
import { compareText } from "./compare.ts";
import type { ReadInput, WebEngine } from "./engine.ts";
import type { ChangesItem, ChangesRequest, PdfRequest, ReadRequest } from "./endpoint-schemas.ts";
import { pdfLimits, readPdf } from "./pdf.ts";
import { type InlineError, type ReadResult, toCompactResult } from "./read-result.ts";

export interface WebCapabilities {
  readonly web: WebEngine;
  readonly signal: AbortSignal;
}

export const defaultMaxChars = 20_000;
const batchConcurrency = 4;

/** Maps with at most `limit` calls in flight; results keep input order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface Batch<T> {
  ok: true;
  batch: true;
  count: number;
  succeeded: number;
  failed: number;
  charged_urls: number;
  results: (T | InlineError)[];
}

/** spec §7 rule 2: a batch succeeds (and is charged in full) when at least one URL succeeded. */
function envelope<T extends { ok: boolean }>(results: (T | InlineError)[]): Batch<T> {
  const succeeded = results.filter((r) => r.ok).length;
  const body: Batch<T> = { ok: true, batch: true, count: results.length, succeeded, failed: results.length - succeeded, charged_urls: succeeded > 0 ? results.length : 0, results };
  if (succeeded === 0) {
    throw new ApiError("BATCH_FAILED", { details: { batch: true, count: body.count, succeeded: 0, failed: body.failed, charged_urls: 0, results } });
  }
  return body;
}

function inlineError(url: string, error: unknown): InlineError {
  const e = toApiError(error);
  return { ok: false, url, error: e.code, status: e.status, message: e.message };
}

export async function readEndpoint(
  input: ReadRequest,
  { web, signal }: WebCapabilities,
  options: { compact: boolean; defaultFormat: "text" | "markdown" },
): Promise<unknown> {
  const shape = (r: ReadResult) => (options.compact ? toCompactResult(r) : r);
  const read: Omit<ReadInput, "url"> = {
    format: input.format ?? options.defaultFormat,
    maxChars: input.max_chars ?? defaultMaxChars,
    ...(input.selector !== undefined ? { selector: input.selector } : {}),
    ...(input.render ? { render: true } : {}),
  };
  if (input.url !== undefined) return shape(await web.read({ ...read, url: input.url }, signal));
  const results = await readBatch(web, input.urls ?? [], read, signal);
  return envelope(results.map((r) => (r.ok ? shape(r) : r)));
}

type Baseline = { url: string; previous_text?: string; previous_sha256?: string };

function baselineOf(item: ChangesItem): Baseline {
  return typeof item === "string" ? { url: item } : item;
}

async function checkOne(baseline: Baseline, input: ChangesRequest, { web, signal }: WebCapabilities) {
  const maxChars = input.max_chars ?? defaultMaxChars;
  const current = await web.read(
    { url: baseline.url, format: "text", maxChars, ...(input.selector !== undefined ? { selector: input.selector } : {}) },
    signal,
  );
  const { comparison, warnings, includeText } = compareText({
    currentText: current.text,
    ...(baseline.previous_text !== undefined ? { previousText: baseline.previous_text } : {}),
    ...(baseline.previous_sha256 !== undefined ? { previousSha256: baseline.previous_sha256 } : {}),
    diffSummary: input.diff_summary === true,
    maxChars,
    ...(input.selector !== undefined ? { selector: input.selector } : {}),
  });
  const { text, ...rest } = current;
  return { ...rest, ...(includeText ? { text } : {}), warnings: [...current.warnings, ...warnings], comparison };
}

export async function changesEndpoint(input: ChangesRequest, caps: WebCapabilities): Promise<unknown> {
  if (input.url !== undefined) {
    return checkOne({ url: input.url, previous_text: input.previous_text, previous_sha256: input.previous_sha256 }, input, caps);
  }
  const items = (input.items ?? []).map(baselineOf);
  const results = await mapBounded(items, batchConcurrency, (b) => checkOne(b, input, caps).catch((error: unknown) => inlineError(b.url, error)));
  return envelope(results);
}

export async function pdfEndpoint(input: PdfRequest, { web, signal }: WebCapabilities): Promise<unknown> {
  const source = await web.fetchBytes(input.url, { maxBytes: pdfLimits.maxBytes, tooLargeCode: "PDF_TOO_LARGE", signal });
  const extraction = await readPdf(source.bytes);
  return { ok: true, url: input.url, ...extraction };
}
