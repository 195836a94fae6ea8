/**
 * @module web/fetch/body-reader — reads a response body, undoing its content-encoding, and stops as
 * soon as the decoded size passes the cap (so a compression bomb costs at most cap + one chunk).
 */
import { Readable, type Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { ApiError, type ErrorCode } from "../../errors.ts";

export interface ReadBodyOptions {
  /** Content-Encoding header value ("" or undefined for identity). */
  contentEncoding: string | undefined;
  /** Cap on the decoded body, in bytes. */
  maxBytes: number;
  tooLargeCode: ErrorCode;
  /** Keep the first maxBytes and stop reading instead of failing. */
  truncateAtMax?: boolean;
  signal: AbortSignal;
}

class BodyTooLarge extends Error {}

/** Raw deflate and zlib-wrapped deflate are both sent as "deflate" in the wild; the first two bytes tell which. */
function isZlibHeader(first: Uint8Array): boolean {
  const [a, b] = first;
  return a !== undefined && b !== undefined && (a & 0x0f) === 8 && ((a << 8) | b) % 31 === 0;
}

function createDecoder(encoding: string, first: Uint8Array): Transform | undefined {
  // Lenient flush: like browsers, keep what a truncated stream decoded instead of failing.
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case "identity":
      return undefined;
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(lenient);
    case "deflate":
      return isZlibHeader(first) ? zlib.createInflate(lenient) : zlib.createInflateRaw(lenient);
    case "br":
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      throw new ApiError("UNSUPPORTED_CONTENT_TYPE", { message: `The source used an unsupported content-encoding (${encoding}).` });
  }
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]?.byteLength === total) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Returns the decoded body. Throws `tooLargeCode` past `maxBytes`, SOURCE_TIMEOUT when `signal` aborts. */
export async function readBody(body: AsyncIterable<Uint8Array>, options: ReadBodyOptions): Promise<Uint8Array> {
  const encodings = (options.contentEncoding ?? "")
    .toLowerCase()
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "" && e !== "identity")
    .reverse();
  const iterator = body[Symbol.asyncIterator]();
  const firstResult = await nextOrAbort(iterator, options.signal);
  if (firstResult.done) return new Uint8Array(0);
  const first = toBytes(firstResult.value);

  async function* raw(): AsyncGenerator<Uint8Array> {
    yield first;
    for (;;) {
      const next = await nextOrAbort(iterator, options.signal);
      if (next.done) return;
      yield toBytes(next.value);
    }
  }

  const chunks: Uint8Array[] = [];
  let total = 0;
  const collect = async (source: AsyncIterable<Uint8Array | Buffer>) => {
    for await (const chunk of source) {
      if (total + chunk.byteLength > options.maxBytes) {
        if (options.truncateAtMax) chunks.push(toBytes(chunk).subarray(0, options.maxBytes - total));
        total = Math.min(total + chunk.byteLength, options.maxBytes);
        throw new BodyTooLarge();
      }
      total += chunk.byteLength;
      chunks.push(toBytes(chunk));
    }
  };
  try {
    if (encodings.length === 0) {
      // Nothing to decode: no stream pipeline (node streams were most of the read path's cost).
      await collect(raw());
    } else {
      const stages: (Readable | Transform)[] = [Readable.from(raw(), { objectMode: false })];
      for (const [index, encoding] of encodings.entries()) {
        const decoder = createDecoder(encoding, index === 0 ? first : new Uint8Array(0));
        if (decoder) stages.push(decoder);
      }
      await (pipeline as (...args: unknown[]) => Promise<void>)(...stages, collect, { signal: options.signal });
    }
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      if (options.truncateAtMax) return concat(chunks, total);
      throw new ApiError(options.tooLargeCode, {
        message: `The source is larger than ${options.maxBytes} bytes (uncompressed); reading stopped at the limit.`,
      });
    }
    if (options.signal.aborted) throw new ApiError("SOURCE_TIMEOUT", { message: "The source did not finish sending in time.", cause: error });
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("Z_")) {
      throw new ApiError("SOURCE_UNREACHABLE", { message: "The source sent a body that could not be decompressed.", cause: error });
    }
    throw new ApiError("SOURCE_UNREACHABLE", { message: "The connection to the source failed while reading.", cause: error });
  }
  return concat(chunks, total);
}

function toBytes(chunk: Uint8Array | Buffer | string): Uint8Array {
  if (typeof chunk === "string") return new TextEncoder().encode(chunk);
  return chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk);
}

async function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  if (signal.aborted) throw new ApiError("SOURCE_TIMEOUT", { message: "The source did not finish sending in time." });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ApiError("SOURCE_TIMEOUT", { message: "The source did not finish sending in time." }));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([iterator.next(), aborted]);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError("SOURCE_UNREACHABLE", { message: "The connection to the source failed while reading.", cause: error });
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
