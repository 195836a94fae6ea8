/**
 * @module web/extract-worker — the entry point of one extraction thread (see extract-pool):
 * extracts the page it is sent with `extractHtmlSync`, collecting garbage before or after when the
 * pool asks. Listed as an entry point in scripts/build.ts for the binary.
 */
import { extractHtmlSync } from "./extract.ts";
import type { ExtractRequest } from "./extract-pool-protocol.ts";
import { serveThreadRequests } from "./thread-worker.ts";

serveThreadRequests(
  (request: ExtractRequest) => {
    if (request.collectBefore) Bun.gc(true);
    const { html, url, markdown, selector } = request;
    return extractHtmlSync({ html, url, markdown, ...(selector !== undefined ? { selector } : {}) });
  },
  (request) => {
    if (request.collect) Bun.gc(true);
  },
);
