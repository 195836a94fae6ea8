/**
 * @module web/extract-worker — the entry point of one extraction thread (see extract-pool):
 * extracts the page it is sent with `extractHtmlSync`, collecting garbage before or after when the
 * pool asks, and when it has been idle a while after extracting (idle-collect.ts). Listed as an
 * entry point in scripts/build.ts for the binary.
 */
import { extractHtmlSync } from "./extract.ts";
import type { ExtractRequest } from "./extract-pool-protocol.ts";
import { createIdleCollector } from "./idle-collect.ts";
import { serveThreadRequests } from "./thread-worker.ts";

/**
 * Long enough that a busy thread (pages every few ms) never collects for being idle, short enough
 * that a thread serving rendered reads (a few a second) collects between them.
 */
const IDLE_COLLECT_AFTER_MS = 250;

const idleCollector = createIdleCollector({ afterMs: IDLE_COLLECT_AFTER_MS, collect: () => Bun.gc(true) });

serveThreadRequests(
  (request: ExtractRequest) => {
    idleCollector.busy();
    if (request.collectBefore) Bun.gc(true);
    const { html, url, markdown, selector } = request;
    return extractHtmlSync({ html, url, markdown, ...(selector !== undefined ? { selector } : {}) });
  },
  (request) => {
    if (request.collect) Bun.gc(true);
    idleCollector.idle(request.collect === true);
  },
);
