/**
 * One side of pdf-ab.ts on a thread of its own: loads the readPdf module it is first sent (a revision's or the
 * working tree's), then reads each document it is sent and answers with the time taken and the pages' text. A
 * thread per side gives each its own mupdf instance, as the server's PDF thread has: mupdf's settings are global
 * to an instance, so one side's could not otherwise be told from the other's.
 */
import { threadCpuMs } from "./extraction-thread-clock.ts";

declare const self: Worker;

type ReadPdf = (bytes: Uint8Array) => Promise<{ pages: { text: string }[]; extraction_ms?: number }>;
let read: ReadPdf | undefined;

self.onmessage = async (event: MessageEvent<{ module: string } | { bytes: Uint8Array }>) => {
  const message = event.data;
  if ("module" in message) {
    read = (await import(message.module)).readPdf as ReadPdf;
    self.postMessage({ ready: true });
    return;
  }
  const started = performance.now();
  // This thread's CPU time for the read, beside the wall time, from the thread's own clock (precise to the
  // nanosecond). process.threadCpuUsage moves in scheduler ticks here (4 ms) and misses the end of a read that ends
  // between ticks: over the bench's files it read 10-20 % low (a 0.3 ms loop read 0.01-0.24 ms on average).
  const cpu = threadCpuMs();
  const cpuMs = (): number => threadCpuMs() - cpu;
  try {
    const { extraction_ms: _, ...result } = await (read as ReadPdf)(message.bytes);
    self.postMessage({ ms: performance.now() - started, cpuMs: cpuMs(), pages: result.pages.map((p) => p.text), result: JSON.stringify(result) });
  } catch (error) {
    const { code, message: text } = error as { code?: string; message?: string };
    self.postMessage({ ms: performance.now() - started, cpuMs: cpuMs(), pages: [], result: JSON.stringify({ code, message: text }) });
  }
};
