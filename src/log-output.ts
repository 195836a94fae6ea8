/**
 * @module log-output — where log lines go: stdout (stderr for errors), or a file of bounded size
 * kept with a few rotated predecessors. Lines are written together, every 100 ms or 64 KiB: one
 * write call per line cost more than the rest of a cheap request (`scripts/bench/request-cost.ts`).
 * Error lines, and everything before them, are written at once; the rest is written when the
 * process exits normally. A process killed outright loses at most the last 100 ms of lines.
 */
import { closeSync, existsSync, fstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import type { Config } from "./config.ts";
import type { LogLevel, LogSink } from "./log.ts";
import { sleepSync } from "./runtime/process.ts";

const flushEveryMs = 100;
const flushAtBytes = 64 * 1024;

export interface LogFileOptions {
  readonly path: string;
  /** The file is rotated before a write would take it past this size. */
  readonly maxBytes: number;
  /** Rotated files kept beside it (`path.1` newest … `path.N`); older ones are deleted. */
  readonly keep: number;
}

export interface LogOutput {
  readonly sink: LogSink;
  /** Writes what is buffered now. */
  flush(): void;
}

type Write = (bytes: Uint8Array, level: LogLevel) => void;

/**
 * Buffers lines for `write`, flushing on a timer, at 64 KiB, at an error line, and at process exit.
 * Each line is encoded once, straight into one reused buffer (no joining, measuring and encoding
 * again at the flush).
 */
function buffered(write: Write): LogOutput {
  const buffer = Buffer.allocUnsafe(2 * flushAtBytes);
  let used = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (used === 0) return;
    const bytes = buffer.subarray(0, used);
    used = 0;
    write(bytes, "info");
  };
  process.once("exit", flush);
  const sink: LogSink = (line, level) => {
    // At most 3 bytes of UTF-8 per UTF-16 unit, and the newline.
    const room = line.length * 3 + 1;
    if (level === "error" || room > buffer.length - used) flush();
    if (level === "error" || room > buffer.length) {
      write(Buffer.from(`${line}\n`), level);
      return;
    }
    used += buffer.write(line, used);
    buffer[used++] = 10;
    if (used >= flushAtBytes) flush();
    else if (!timer) {
      timer = setTimeout(flush, flushEveryMs);
      timer.unref?.();
    }
  };
  return { sink, flush };
}

let stdout: LogOutput | undefined;

/** stdout for every level but error (stderr), written in batches; one buffer per process. */
export function stdoutLogOutput(): LogOutput {
  return (stdout ??= buffered((bytes, level) => writeAll(level === "error" ? 2 : 1, bytes)));
}

/** A file that never grows past `maxBytes`: before it would, it becomes `path.1` (the older ones shift up to `path.keep`). */
export function fileLogOutput(options: LogFileOptions): LogOutput {
  let fd = openSync(options.path, "a");
  let size = fstatSync(fd).size;
  const rotate = () => {
    closeSync(fd);
    const named = (n: number) => `${options.path}.${n}`;
    if (options.keep === 0) rmSync(options.path, { force: true });
    else {
      rmSync(named(options.keep), { force: true });
      for (let n = options.keep - 1; n >= 1; n--) if (existsSync(named(n))) renameSync(named(n), named(n + 1));
      renameSync(options.path, named(1));
    }
    fd = openSync(options.path, "a");
    size = 0;
  };
  return buffered((bytes) => {
    if (size > 0 && size + bytes.byteLength > options.maxBytes) rotate();
    writeAll(fd, bytes);
    size += bytes.byteLength;
  });
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.byteLength) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      // A full pipe (non-blocking stdout): wait for the reader rather than drop lines.
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      sleepSync(1);
    }
  }
}

/** The configured output: the log file when one is set, else stdout. */
export function logOutputFor(config: Pick<Config, "logFile" | "logFileMaxMb" | "logFileKeep">): LogOutput {
  return config.logFile ? fileLogOutput({ path: config.logFile, maxBytes: config.logFileMaxMb * 1_000_000, keep: config.logFileKeep }) : stdoutLogOutput();
}
