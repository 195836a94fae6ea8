/**
 * @module web/endpoints — what the web evidence plugin files run: single reads and batches,
 * change checks, PDF text. Thin over the engine, compare and pdf modules.
 */
import { ApiError, toApiError } from "../errors.ts";
import { readBatch } from "./batch.ts";
import { compareText, type FilterCounts } from "./compare/compare.ts";
import type { ReadFilters, ReadInput, WebEngine } from "./engine.ts";
import { MAX_SCAN_CHARS, removeMatchingLines } from "./filters/line-filter.ts";
import { compileRequestPatterns, firstMatch, type LinePattern } from "./filters/line-patterns.ts";
import { limitText, makeWellFormed, sha256Hex } from "./text/text-output.ts";
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

/** The engine's read options for a request's format, max_chars, selector and render. */
export function readOptions(input: Pick<ReadRequest, "format" | "max_chars" | "selector" | "render">, defaultFormat: "text" | "markdown"): Omit<ReadInput, "url"> {
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

/** A request's filters, compiled once for all its URLs. */
interface ChangeFilters {
  ignoreSelectors: readonly string[];
  ignore: LinePattern[];
  trigger: LinePattern[];
}

function changeFiltersOf(input: ChangesRequest): ChangeFilters {
  const { ignore, trigger } = compileRequestPatterns(input.ignore_patterns, input.trigger_patterns);
  return { ignoreSelectors: input.ignore_selectors ?? [], ignore, trigger };
}

/**
 * One URL against its baseline. The filters run in this order: ignore_selectors on the page before extraction,
 * ignore_patterns on the extracted text before the max_chars cut (and on previous_text), then the comparison,
 * where trigger_patterns decide `changed`. Hashes are of the filtered text, so an answer's text and
 * current_sha256 are the baseline for the next check with the same filters.
 */
async function checkOne(baseline: Baseline, input: ChangesRequest, filters: ChangeFilters, { web, signal }: WebCapabilities) {
  const { previous_text: sentText, previous_sha256: sentSha256 } = baseline;
  if (sentText !== undefined && sentSha256 !== undefined && sha256Hex(makeWellFormed(sentText)) !== sentSha256.toLowerCase()) {
    throw new ApiError("BASELINE_MISMATCH", { message: "previous_text does not hash to previous_sha256: send the text and hash of the same baseline, or only one of them." });
  }
  const maxChars = input.max_chars ?? defaultMaxChars;
  const form = input.compare ?? "text";
  const counts: FilterCounts = {};
  const warnings: string[] = [];
  let unfilteredSha256: string | undefined;
  const readFilters: ReadFilters = {};
  if (filters.ignoreSelectors.length > 0) {
    counts.ignore_selectors = { elements: 0, lines: 0 };
    readFilters.ignoreSelectors = filters.ignoreSelectors;
    readFilters.ignored = (ignored) => (counts.ignore_selectors = { ...ignored });
  }
  if (filters.ignore.length > 0) {
    readFilters.lines = (content, contentForm, keepChars) => {
      const filtered = removeMatchingLines(content, filters.ignore, keepChars);
      if (contentForm === form) {
        counts.ignore_patterns = { lines: filtered.removed, by_pattern: filtered.byPattern };
        if (filtered.scanCut) warnings.push(`ignore_patterns read the first ${MAX_SCAN_CHARS} characters of the ${form} only; it stops there.`);
        if (baseline.previous_sha256 !== undefined && filtered.removed > 0) unfilteredSha256 = sha256Hex(limitText(content, keepChars).value);
      }
      return filtered.text;
    };
  }
  const current = await web.read(
    { url: baseline.url, format: form, maxChars, ...(input.selector !== undefined ? { selector: input.selector } : {}), filters: readFilters },
    signal,
  );
  let previousText = baseline.previous_text;
  if (previousText !== undefined && filters.ignore.length > 0) {
    const filtered = removeMatchingLines(previousText, filters.ignore, Number.POSITIVE_INFINITY);
    previousText = filtered.text;
    if (counts.ignore_patterns) counts.ignore_patterns.previous_lines = filtered.removed;
  }
  const compared = form === "markdown" ? (current.markdown ?? "") : current.text;
  const { comparison, warnings: compareWarnings, includeText } = compareText({
    currentText: compared,
    // A text and hash pair was checked above; what is compared is the filtered text.
    ...(previousText !== undefined ? { previousText } : baseline.previous_sha256 !== undefined ? { previousSha256: baseline.previous_sha256 } : {}),
    diffSummary: input.diff_summary === true,
    maxChars,
    ...(input.selector !== undefined ? { selector: input.selector } : {}),
    ...(filters.trigger.length > 0 ? { trigger: (line: string) => firstMatch(filters.trigger, line) >= 0 } : {}),
  });
  if (unfilteredSha256 !== undefined && comparison.changed && comparison.previous_sha256 === unfilteredSha256) {
    warnings.push(
      "previous_sha256 is the hash of this text before ignore_patterns: the filtered text differs from it only by the lines the filters removed. " +
        "Keep comparison.current_sha256 as the baseline for checks with the same filters.",
    );
  }
  if (Object.keys(counts).length > 0) comparison.filters = counts;
  const { text, markdown, ...rest } = current;
  const body = includeText ? (form === "markdown" ? { markdown } : { text }) : {};
  return noteRead({ ...rest, ...body, warnings: [...current.warnings, ...compareWarnings, ...warnings], comparison }, current);
}

export async function changesEndpoint(input: ChangesRequest, caps: WebCapabilities): Promise<Static<typeof ChangesOutputSchema>> {
  const filters = changeFiltersOf(input);
  if (input.url !== undefined) {
    return checkOne({ url: input.url, previous_text: input.previous_text, previous_sha256: input.previous_sha256 }, input, filters, caps);
  }
  const items = (input.items ?? []).map(baselineOf);
  const results = await mapBounded(items, batchConcurrency, (b) => checkOne(b, input, filters, caps).catch((error: unknown) => inlineError(b.url, error)));
  return envelope(results);
}

export async function pdfEndpoint(input: PdfRequest, { web, signal }: WebCapabilities): Promise<Static<typeof PdfResultSchema>> {
  const source = await web.fetchBytes(input.url, { maxBytes: pdfLimits.maxBytes, tooLargeCode: "PDF_TOO_LARGE", signal });
  const extraction = await web.readPdf(source.bytes);
  return notePdf({ ok: true as const, url: input.url, ...extraction }, source, extraction);
}
