/**
 * @module web/threads/pdf-worker — the entry point of the PDF thread (see pdf-thread): reads one PDF's
 * bytes with `readPdf` (mupdf's WASM lives in this thread). Listed as an entry point in
 * scripts/build.ts for the binary.
 */
import { readPdf } from "../pdf/pdf.ts";
import { serveThreadRequests } from "./thread-worker.ts";

serveThreadRequests((request: { id: number; bytes: Uint8Array }) => readPdf(request.bytes));
