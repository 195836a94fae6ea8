/**
 * @module web/endpoints — what the web evidence plugin files run: single reads and batches,
 * change checks, PDF text. Thin over the engine, compare and pdf modules.
 */
import { ApiError, toApiError } from "../errors.ts";
import { readBatch } from "./batch.ts";
import { compareText } from "./compare/compare.ts";
import type { ReadInput, WebEngine } from "./engine.ts";
import type { Static } from "@sinclair/typebox";
import type { ChangesItem, ChangesOutputSchema, ChangesRequest, FetchOutputSchema, PdfRequest, PdfResultSchema, ReadOutputSchema, ReadRequest } from "./endpoint-schemas.ts";
import { pdfLimits } from "./pdf/pdf.ts";
import { notePdf, noteRead } from "./evidence-facts.ts";
import { type InlineError, type ReadResult, toCompactResult } from "./read-result.ts";

export interface WebCapabilities {
  readonly web: WebEngine;
  readonly signal: AbortSignal;
}

export const defaultMaxChars = 20_000;
const batchConcurrency = 4;

/** Maps with at most `limit` calls in flight; results keep input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
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

/** spec §7 rule 2: a batch succeeds (and is charged in full) when at least one URL succeeded; else BATCH_FAILED (not charged). */
export function envelope<T extends { ok: boolean }>(results: (T | InlineError)[]): Batch<T> {
  const succeeded = results.filter((r) => r.ok).length;
  const body: Batch<T> = { ok: true, batch: true, count: results.length, succeeded, failed: results.length - succeeded, charged_urls: succeeded > 0 ? results.length : 0, results };
  if (succeeded === 0) {
    throw new ApiError("BATCH_FAILED", { details: { batch: true, count: body.count, succeeded: 0, failed: body.failed, charged_urls: 0, results } });
  }
  return body;
}

export function inlineError(url: string, error: unknown): InlineError {
  const e = toApiError(error);
  return { ok: false, url, error: e.code, status: e.status, message: e.message };
}

function readOptions(input: ReadRequest, defaultFormat: "text" | "markdown"): Omit<ReadInput, "url"> {
  return {
    format: input.format ?? defaultFormat,
    maxChars: input.max_chars ?? defaultMaxChars,
    ...(input.selector !== undefined ? { selector: input.selector } : {}),
    ...(input.render ? { render: true } : {}),
  };
}

/** web/read and web/markdown: the full read result, or a batch of them. */
export async function readEndpoint(
  input: ReadRequest,
  { web, signal }: WebCapabilities,
  options: { defaultFormat: "text" | "markdown" },
): Promise<Static<typeof ReadOutputSchema>> {
  const read = readOptions(input, options.defaultFormat);
  const noted = (r: ReadResult) => noteRead(r, r);
  if (input.url !== undefined) return noted(await web.read({ ...read, url: input.url }, signal));
  return envelope((await readBatch(web, input.urls ?? [], read, signal)).map((r) => (r.ok ? noted(r) : r)));
}

/** web/fetch: the compact projection of the same reads. */
export async function fetchEndpoint(input: ReadRequest, { web, signal }: WebCapabilities): Promise<Static<typeof FetchOutputSchema>> {
  const read = readOptions(input, "text");
  const compact = (r: ReadResult) => noteRead(toCompactResult(r), r);
  if (input.url !== undefined) return compact(await web.read({ ...read, url: input.url }, signal));
  const results = await readBatch(web, input.urls ?? [], read, signal);
  return envelope(results.map((r) => (r.ok ? compact(r) : r)));
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
  return noteRead({ ...rest, ...(includeText ? { text } : {}), warnings: [...current.warnings, ...warnings], comparison }, current);
}

export async function changesEndpoint(input: ChangesRequest, caps: WebCapabilities): Promise<Static<typeof ChangesOutputSchema>> {
  if (input.url !== undefined) {
    return checkOne({ url: input.url, previous_text: input.previous_text, previous_sha256: input.previous_sha256 }, input, caps);
  }
  const items = (input.items ?? []).map(baselineOf);
  const results = await mapBounded(items, batchConcurrency, (b) => checkOne(b, input, caps).catch((error: unknown) => inlineError(b.url, error)));
  return envelope(results);
}

export async function pdfEndpoint(input: PdfRequest, { web, signal }: WebCapabilities): Promise<Static<typeof PdfResultSchema>> {
  const source = await web.fetchBytes(input.url, { maxBytes: pdfLimits.maxBytes, tooLargeCode: "PDF_TOO_LARGE", signal });
  const extraction = await web.readPdf(source.bytes);
  return notePdf({ ok: true as const, url: input.url, ...extraction }, source, extraction);
}
