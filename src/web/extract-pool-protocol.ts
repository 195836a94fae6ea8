/** @module web/extract-pool-protocol — the messages between the extraction pool and its threads. */
import type { ErrorCode } from "../errors.ts";
import type { HtmlExtraction } from "./extract.ts";

/** A flat object of strings, numbers and booleans (Bun's fast path for postMessage). */
export interface ExtractRequest {
  id: number;
  html: string;
  url: string;
  selector?: string;
  markdown: boolean;
  /** Before extracting, run a full garbage collection (see ExtractPoolOptions.collectAfterChars). */
  collectBefore?: boolean;
  /** After answering, run a full garbage collection. */
  collect?: boolean;
}

export type ExtractReply =
  | { id: number; ok: true; result: HtmlExtraction }
  /** `code` is set when extraction threw an ApiError (SELECTOR_INVALID, SELECTOR_NOT_FOUND). */
  | { id: number; ok: false; code?: ErrorCode; message: string };
