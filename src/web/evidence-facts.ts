/**
 * @module web/evidence-facts — notes on each successful web result the facts its signed
 * statement will carry (evidence/seal signs them once the payment settled), including those the
 * result does not show: the source hash of a compact web/fetch result, a PDF's final URL and status.
 */
import { noteEvidence } from "../evidence/notes.ts";
import type { SourceFacts } from "../evidence/statement.ts";
import type { FetchedBytes } from "./engine.ts";
import type { PdfExtraction } from "./pdf/pdf-schema.ts";
import type { ReadResult } from "./read-result.ts";

/** The result version of pdf/read's extraction (bump on any change of its output). */
export const PDF_RESULT_VERSION = "pdf-read/1";

export function readFacts(read: ReadResult): SourceFacts {
  return {
    url: read.url,
    final_url: read.final_url,
    source_status: read.source_status,
    fetched_at: read.fetched_at,
    content_type: read.content_type,
    source_sha256: read.source_sha256,
    text_sha256: read.text_sha256,
    ...(read.markdown_sha256 !== undefined ? { markdown_sha256: read.markdown_sha256 } : {}),
    format: read.format ?? "text",
    ...(read.selector !== undefined ? { selector: read.selector } : {}),
    version: read.version,
  };
}

/** The page a browser capture (web/screenshot, web/archive) was made of, as its statement names it. */
export function capturedPageFacts(result: { url: string; final_url: string; source_status: number; fetched_at: string }): Pick<SourceFacts, "url" | "final_url" | "source_status" | "fetched_at"> {
  return { url: result.url, final_url: result.final_url, source_status: result.source_status, fetched_at: result.fetched_at };
}

/** Notes `result` as evidence of the read it was made from (the read itself, or a projection of it). */
export function noteRead<T extends object>(result: T, read: ReadResult): T {
  return noteEvidence(result, readFacts(read));
}

export function notePdf<T extends object>(result: T, source: FetchedBytes, extraction: PdfExtraction): T {
  return noteEvidence(result, {
    url: source.url,
    final_url: source.finalUrl,
    source_status: source.status,
    fetched_at: source.fetchedAt,
    content_type: source.contentType,
    source_sha256: source.sha256,
    text_sha256: extraction.text_sha256,
    format: "pdf-text",
    version: PDF_RESULT_VERSION,
  });
}
