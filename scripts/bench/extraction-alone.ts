/**
 * Extraction alone, measured as the server's extraction is (for web-read-throughput.ts): the extractor bundled and
 * minified with the binary's options, in a fresh Bun process of its own that does nothing but extract, on as many
 * Worker threads as the server's extraction threads, over the same pages in the same order as the reads; its CPU is
 * the whole process's (every thread: extraction, JIT, collector) read from /proc, as the server's is.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtractionJob } from "./extraction-alone-child.ts";
import { readCpuMs, readThreadCpuMs, threadCpuPerRead } from "./proc-cpu.ts";

export type { ExtractionJob };

/** Bundles extraction-alone-child.ts with the binary's minify and target (scripts/build.ts); returns the bundle's path and a cleanup. */
export async function bundleExtractionAlone(): Promise<{ path: string; remove(): void }> {
  const { bundleOptions } = await import("../build.ts");
  const { minify, target, sourcemap } = bundleOptions("");
  const dir = mkdtempSync(join(tmpdir(), "tb-bench-alone-"));
  const result = await Bun.build({ entrypoints: [join(import.meta.dir, "extraction-alone-child.ts")], outdir: dir, minify, target, sourcemap });
  if (!result.success) throw new Error(`bundling extraction alone failed: ${result.logs.join("\n")}`);
  return { path: result.outputs[0]!.path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ExtractionAlone {
  /** The process's CPU (all threads) in ms, per extraction of the timed part. */
  msPerPage: number;
  /** The same by thread name, as web-read-throughput.ts splits the server's. */
  byThread: string;
}

/** Runs one fresh extracting process over `job` on `threads` threads and measures its timed part. */
export async function measureExtractionAlone(bundle: string, job: ExtractionJob, threads: number): Promise<ExtractionAlone> {
  const dir = mkdtempSync(join(tmpdir(), "tb-bench-alone-job-"));
  const jobFile = join(dir, "job.json");
  writeFileSync(jobFile, JSON.stringify(job));
  const child = fork(bundle, [jobFile, String(threads)], { execPath: process.execPath, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    const said = (word: string) =>
      new Promise<void>((resolve, reject) => {
        child.once("message", (message) => (message === word ? resolve() : reject(new Error(`extraction alone said ${String(message)}`))));
        child.once("exit", (code) => reject(new Error(`extraction alone exited with ${code}`)));
      });
    await said("warm");
    const pid = child.pid!;
    const before = readCpuMs(pid);
    const threadsBefore = readThreadCpuMs(pid);
    const done = said("done");
    child.send("go");
    await done;
    return { msPerPage: (readCpuMs(pid) - before) / job.extractions, byThread: threadCpuPerRead(threadsBefore, readThreadCpuMs(pid), job.extractions) };
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}
