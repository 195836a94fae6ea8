/**
 * @module web/pdf-thread — PDF text extraction on its own thread. mupdf is synchronous WASM: a
 * dense 20-page PDF held the server's event loop for ~0.25 s, during which no other request was
 * answered. One thread (mupdf's heap is ~50 MiB per instance), started on the first PDF, reads
 * one PDF at a time from a queue; results and ApiErrors (code, message, details) are the ones
 * `readPdf` gives in-thread. A thread that dies fails its PDF and is replaced on the next one.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ApiError, errorCodes } from "../errors.ts";
import type { PdfExtraction } from "./pdf-schema.ts";
import type { PdfReply, PdfRequest } from "./pdf-thread-protocol.ts";

/** What the engine calls to read a PDF's bytes: the thread's `read`, or `readPdf` in-thread. */
export type PdfReader = (bytes: Uint8Array) => Promise<PdfExtraction>;

export interface PdfThread {
  read: PdfReader;
  /** Whether the thread is running (it starts on the first PDF). */
  started(): boolean;
  /** Terminates the thread; pending and later reads reject. */
  close(): Promise<void>;
}

/** Bun's Worker also has ref/unref (the DOM typings in scope do not say so). */
type BunWorker = Worker & { ref(): void; unref(): void };

interface Task {
  bytes: Uint8Array;
  resolve(result: PdfExtraction): void;
  reject(error: Error): void;
}

/** From source the entry is beside this file; in the compiled binary it is web/pdf-worker (scripts/build.ts). */
function workerEntry(): string {
  const beside = new URL("./pdf-worker.ts", import.meta.url);
  if (beside.protocol === "file:" && existsSync(fileURLToPath(beside))) return beside.href;
  return "./web/pdf-worker.ts";
}

function toError(reply: Extract<PdfReply, { ok: false }>): Error {
  if (reply.code !== undefined && reply.code in errorCodes) {
    return new ApiError(reply.code, { message: reply.message, ...(reply.details ? { details: reply.details } : {}) });
  }
  return new Error(`PDF extraction failed: ${reply.message}`);
}

export function createPdfThread(): PdfThread {
  const queue: Task[] = [];
  let worker: BunWorker | undefined;
  let busy: (Task & { id: number }) | undefined;
  let nextId = 1;
  let closed = false;

  function stop(reason: string): void {
    const task = busy;
    busy = undefined;
    worker?.terminate();
    worker = undefined;
    task?.reject(new Error(`PDF thread stopped: ${reason}`));
    pump();
  }

  function start(): BunWorker {
    const started = new Worker(workerEntry()) as BunWorker;
    started.onmessage = (event: MessageEvent<PdfReply>) => {
      const reply = event.data;
      const task = busy;
      if (!task || task.id !== reply.id) return;
      busy = undefined;
      started.unref();
      if (reply.ok) task.resolve(reply.result);
      else task.reject(toError(reply));
      pump();
    };
    started.onerror = (event: ErrorEvent) => {
      if (worker === started) stop(event.message || "worker error");
    };
    started.addEventListener("close", () => {
      if (worker === started) stop("worker exited");
    });
    started.unref();
    return started;
  }

  function pump(): void {
    if (closed || busy || queue.length === 0) return;
    const task = queue.shift() as Task;
    worker ??= start();
    busy = { ...task, id: nextId++ };
    worker.ref();
    worker.postMessage({ id: busy.id, bytes: task.bytes } satisfies PdfRequest);
  }

  return {
    read(bytes) {
      if (closed) return Promise.reject(new Error("the PDF thread is closed"));
      return new Promise<PdfExtraction>((resolve, reject) => {
        queue.push({ bytes, resolve, reject });
        pump();
      });
    },
    started: () => worker !== undefined,
    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new Error("the PDF thread is closed"));
      stop("closed");
    },
  };
}
