/**
 * @module web/threads/extract-worker — the entry point of one extraction thread (see extract-pool):
 * extracts the page it is sent with `extractHtmlSync`, forcing full garbage collections at the
 * pool's budget (collection-pacing.ts) and when it has been idle a while after extracting
 * (idle-collect.ts). Listed as an entry point in scripts/build.ts for the binary.
 */
import { estimatedPageWeight, CollectionPacer, pageWeight } from "./collection-pacing.ts";
import { takeCharsParsed } from "../extract/content-parse.ts";
import { extractHtmlSync } from "../extract/extract.ts";
import type { ExtractRequest } from "./extract-pool-protocol.ts";
import { createIdleCollector } from "./idle-collect.ts";
import { serveThreadRequests } from "./thread-worker.ts";

/**
 * Long enough that a busy thread (pages every few ms) never collects for being idle, short enough
 * that a thread serving rendered reads (a few a second) collects between them.
 */
const IDLE_COLLECT_AFTER_MS = 250;

let pacer: CollectionPacer | undefined;

function collect(): void {
  Bun.gc(true);
  pacer?.collected();
}

const idleCollector = createIdleCollector({ afterMs: IDLE_COLLECT_AFTER_MS, collect });

serveThreadRequests(
  (request: ExtractRequest) => {
    idleCollector.busy();
    pacer ??= new CollectionPacer(request.collectBudget);
    const { html, url, markdown, selector } = request;
    if (pacer.before(estimatedPageWeight(html.length))) collect();
    try {
      return extractHtmlSync({ html, url, markdown, ...(selector !== undefined ? { selector } : {}) });
    } finally {
      pacer.counted(pageWeight(takeCharsParsed(), html.length));
    }
  },
  () => {
    const due = pacer?.due() === true;
    if (due) collect();
    idleCollector.idle(due);
  },
);
