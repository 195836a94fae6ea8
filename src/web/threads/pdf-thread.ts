/**
 * @module web/threads/pdf-thread — PDF text extraction on its own thread. mupdf is synchronous WASM: on the
 * server's thread it held the event loop for the whole parse (8 dense 20-page PDFs: 1.1 s without
 * an answered request; scripts/bench/pdf-event-loop.ts). One thread, because mupdf's heap is
 * ~50 MiB per instance, started on the first PDF; results and ApiErrors are the ones `readPdf`
 * gives in-thread (queueing and threads: thread-pool.ts).
 */
import type { PdfExtraction } from "../pdf/pdf-schema.ts";
import { createThreadPool } from "./thread-pool.ts";

/** What the engine calls to read a PDF's bytes: the thread's `read`, or `readPdf` in-thread. */
export type PdfReader = (bytes: Uint8Array) => Promise<PdfExtraction>;

export interface PdfThread {
  read: PdfReader;
  /** Whether the thread is running (it starts on the first PDF). */
  started(): boolean;
  /** Terminates the thread; pending and later reads reject. */
  close(): Promise<void>;
}

export function createPdfThread(): PdfThread {
  const pool = createThreadPool<Uint8Array, PdfExtraction>({
    entry: "pdf-worker.ts",
    size: 1,
    label: "PDF extraction",
    message: (bytes, id) => ({ id, bytes }),
  });
  return { read: pool.run, started: () => pool.started() > 0, close: pool.close };
}
