/** @module web/pdf-thread-protocol — the messages between the PDF thread and the server's thread. */
import type { ErrorCode } from "../errors.ts";
import type { PdfExtraction } from "./pdf-schema.ts";

export interface PdfRequest {
  id: number;
  bytes: Uint8Array;
}

export type PdfReply =
  | { id: number; ok: true; result: PdfExtraction }
  /** `code` (and `details`) are set when readPdf threw an ApiError. */
  | { id: number; ok: false; code?: ErrorCode; message: string; details?: Record<string, unknown> };
