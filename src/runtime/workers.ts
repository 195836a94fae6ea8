/**
 * @module runtime/workers — starts a module Worker and lets it not hold the process open. Bun and
 * Deno both take `{ type: "module" }`; Bun's Worker also has `ref`/`unref` and a "close" event.
 */
export type RuntimeWorker = Worker & { ref?(): void; unref?(): void };

export function startWorker(entry: string | URL): RuntimeWorker {
  return new Worker(entry, { type: "module" }) as RuntimeWorker;
}

/** A worker with nothing to do does not keep the process alive (where the runtime allows it). */
export function unrefWorker(worker: RuntimeWorker): void {
  worker.unref?.();
}

/** A busy worker keeps the process alive again. */
export function refWorker(worker: RuntimeWorker): void {
  worker.ref?.();
}
