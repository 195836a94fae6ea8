/**
 * @module web/extract-worker — the entry point of one extraction thread (see extract-pool):
 * receives HTML with its URL and options, answers with `extractHtmlSync`'s result or the
 * error's code and message. Listed as an entry point in scripts/build.ts for the binary.
 */
import { ApiError } from "../errors.ts";
import { extractHtmlSync } from "./extract.ts";
import type { ExtractReply, ExtractRequest } from "./extract-pool-protocol.ts";

declare const self: Worker;

function answer(request: ExtractRequest): ExtractReply {
  try {
    const input = { html: request.html, url: request.url, markdown: request.markdown, ...(request.selector !== undefined ? { selector: request.selector } : {}) };
    return { id: request.id, ok: true, result: extractHtmlSync(input) };
  } catch (error) {
    if (error instanceof ApiError) return { id: request.id, ok: false, code: error.code, message: error.message };
    return { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

self.onmessage = (event: MessageEvent<ExtractRequest>) => {
  if (event.data.collectBefore) Bun.gc(true);
  self.postMessage(answer(event.data));
  if (event.data.collect) Bun.gc(true);
};
