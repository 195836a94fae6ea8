/**
 * @module search/engine — what the search engines (web/search-engine.ts is their port) share: the JSON GET, an engine that times out is
 * SEARCH_ENGINE_TIMEOUT (504), one that fails, answers 4xx/5xx or answers something that is not its
 * JSON is SEARCH_ENGINE_FAILED (502). Never a 500, and the endpoint charges nothing for either.
 */
import { ApiError } from "../errors.ts";

export type { SearchEngine, SearchHit, SearchQuery, TimeRange } from "../web/search-engine.ts";

/** An engine answer larger than this is refused (a results page is a few tens of KiB). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** GETs `url` and parses its JSON body within `timeoutMs`; every failure is the engine's (502/504), named for the operator's log. */
export async function getEngineJson(engine: string, url: URL, init: { headers?: Record<string, string>; timeoutMs: number; signal: AbortSignal }): Promise<unknown> {
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = AbortSignal.any([timeout, init.signal]);
  const failed = (why: string, cause?: unknown) => new ApiError("SEARCH_ENGINE_FAILED", { message: `The search engine (${engine}) failed: ${why}. Nothing was charged.`, cause });
  let text: string;
  try {
    const response = await fetch(url, { headers: { accept: "application/json", ...init.headers }, signal, redirect: "error" });
    if (!response.ok) {
      await response.body?.cancel();
      throw failed(`it answered HTTP ${response.status}`);
    }
    text = await boundedText(response, () => failed("its answer is too large"));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (timeout.aborted) throw new ApiError("SEARCH_ENGINE_TIMEOUT", { message: `The search engine (${engine}) did not answer within ${init.timeoutMs} ms. Nothing was charged.` });
    if (init.signal.aborted) throw init.signal.reason ?? error;
    throw failed("it could not be reached", error);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw failed("its answer is not JSON", error);
  }
}

/** The body as text, refused (`tooLarge`) once it passes MAX_ANSWER_BYTES, whatever its Content-Length says. */
async function boundedText(response: Response, tooLarge: () => ApiError): Promise<string> {
  if (Number(response.headers.get("content-length") ?? 0) > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** A non-empty string field of an engine's JSON, else undefined. */
export function textField(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** The engine's answer did not have the documented shape. */
export function malformed(engine: string, what: string): ApiError {
  return new ApiError("SEARCH_ENGINE_FAILED", { message: `The search engine (${engine}) answered JSON without ${what}. Nothing was charged.` });
}
