/**
 * @module web/read-local — a local file read as if it had been fetched from a URL: same
 * decoding, extraction, truncation and hashes as `web/read`, no network. For skill authors and
 * benchmarks (`tollbooth read --file PATH --url URL`).
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { ApiError } from "../errors.ts";
import { buildReadResult, type ReadInput, WEB_MAX_BYTES } from "./engine.ts";
import type { ReadResult } from "./read-result.ts";

export interface LocalSource {
  bytes: Uint8Array;
  /** The URL the bytes stand for: base of relative links and the kind hint for extension-less types. */
  url: string;
  /** Content-Type header value; "" lets the engine sniff (URL extension, then HTML markers). */
  contentType: string;
}

const TYPE_BY_EXTENSION: Record<string, string> = {
  html: "text/html",
  htm: "text/html",
  xhtml: "application/xhtml+xml",
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  pdf: "application/pdf",
};

/** Content type a file name implies ("" when the extension says nothing). */
export function contentTypeForFile(path: string): string {
  const name = path.toLowerCase().replace(/\.gz$/, "");
  const extension = name.slice(name.lastIndexOf(".") + 1);
  return name.includes(".") ? (TYPE_BY_EXTENSION[extension] ?? "") : "";
}

/** Reads a file (a `.gz` file is decompressed first, as a server's Content-Encoding would be). */
export async function loadLocalFile(path: string, options: { url: string; contentType?: string }): Promise<LocalSource> {
  let bytes: Uint8Array = await readFile(path);
  if (path.toLowerCase().endsWith(".gz")) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: WEB_MAX_BYTES + 1 });
    } catch (cause) {
      if ((cause as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new ApiError("SOURCE_TOO_LARGE", { cause });
      throw new ApiError("INVALID_REQUEST", { message: `${path} is not valid gzip.`, cause });
    }
  }
  return { bytes, url: options.url, contentType: options.contentType ?? contentTypeForFile(path) };
}

/** Same rules as a fetched source: URL must parse as http(s), body capped at 1 MiB; then the engine's extraction. */
export async function readLocalSource(source: LocalSource, input: Omit<ReadInput, "url" | "render">): Promise<ReadResult> {
  let url: URL;
  try {
    url = new URL(source.url);
  } catch {
    throw new ApiError("INVALID_REQUEST", { message: "The URL is not valid." });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ApiError("INVALID_REQUEST", { message: "The URL must be http or https." });
  if (source.bytes.byteLength > WEB_MAX_BYTES) throw new ApiError("SOURCE_TOO_LARGE");
  const headers: Record<string, string> = source.contentType ? { "content-type": source.contentType } : {};
  return buildReadResult({ bytes: source.bytes, headers, finalUrl: url.href, status: 200 }, { ...input, url: source.url }, new Date().toISOString());
}
