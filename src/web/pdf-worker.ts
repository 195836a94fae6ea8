/**
 * @module web/pdf-worker — the entry point of the PDF thread (see pdf-thread): reads one PDF's
 * bytes with `readPdf` (mupdf's WASM lives in this thread) and answers with the extraction, or
 * the error's code, message and details. Listed as an entry point in scripts/build.ts.
 */
import { ApiError } from "../errors.ts";
import { readPdf } from "./pdf.ts";
import type { PdfReply, PdfRequest } from "./pdf-thread-protocol.ts";

declare const self: Worker;

async function answer(request: PdfRequest): Promise<PdfReply> {
  try {
    return { id: request.id, ok: true, result: await readPdf(request.bytes) };
  } catch (error) {
    if (error instanceof ApiError) return { id: request.id, ok: false, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
    return { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

self.onmessage = async (event: MessageEvent<PdfRequest>) => {
  self.postMessage(await answer(event.data));
};
