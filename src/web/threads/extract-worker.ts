/**
 * @module web/threads/extract-worker — the entry point of one extraction thread (see extract-pool):
 * extracts the page it is sent with `extractPageSync` (its bytes decoded here when it comes as bytes; ignore_selectors
 * removed on its parsed page), forcing full garbage collections at the
 * pool's budget (collection-pacing.ts), after a very large page (giving its memory back) and when it has been idle a
 * while after extracting (idle-collect.ts). Listed as an entry point in scripts/build.ts for the binary.
 */
import { collectGarbage, collectGarbageKeepingPace, shrinkFootprint } from "../../runtime/memory.ts";
import { CollectionPacer } from "./collection-pacing.ts";
import type { ExtractRequest } from "./extract-pool-protocol.ts";
import { type ExtractPageInput, extractPageSync, pageSize } from "./extract-page.ts";
import { createIdleCollector, type IdleCollector } from "./idle-collect.ts";
import { serveThreadRequests } from "./thread-worker.ts";

let pacer: CollectionPacer | undefined;
let idleCollector: IdleCollector | undefined;

/** At the budget, under load: a collection that frees and keeps the thread's pace (runtime/memory.ts). */
function collectAtBudget(): void {
  collectGarbageKeepingPace();
  pacer?.collected();
}

/** When the thread idles, or after a very large page (CollectionPacer.givesBack): a collection that gives the memory back too. */
function collectWhenIdle(): void {
  collectGarbage();
  pacer?.collected();
}

/** When the thread idles after a load: the compiled code goes too (runtime/memory.ts). */
function shrinkWhenIdle(): void {
  shrinkFootprint();
  pacer?.collected();
}

/** The pool's settings arrive with every request; the first sets the thread up. */
function pacerFor(request: ExtractRequest): CollectionPacer {
  if (pacer) return pacer;
  if (request.idleCollectAfterMs > 0) {
    const { idleShrinkAfterChars: afterWork, idleShrinkAfterMs: afterMs } = request;
    const shrink = afterWork > 0 ? { afterWork, afterMs, run: shrinkWhenIdle } : undefined;
    idleCollector = createIdleCollector({ afterMs: request.idleCollectAfterMs, collect: collectWhenIdle, ...(shrink ? { shrink } : {}) });
  }
  return (pacer = new CollectionPacer(request.collectBudget, request.giveBackAfterChars));
}

serveThreadRequests(
  (request: ExtractRequest) => {
    const paced = pacerFor(request);
    const { html, bytes, charset, status, headers, url, markdown, selector, ignoreSelectors, pageLinks, maxChars } = request;
    const page = {
      ...(bytes !== undefined
        ? { source: { bytes, ...(charset !== undefined ? { charset } : {}), status: status ?? 200, headers: JSON.parse(headers ?? "{}") as Record<string, string> } }
        : { html: html ?? "" }),
      url,
      markdown,
      ...(selector !== undefined ? { selector } : {}),
      ...(ignoreSelectors !== undefined ? { ignoreSelectors: JSON.parse(ignoreSelectors) as string[] } : {}),
      ...(pageLinks ? { pageLinks } : {}),
      ...(maxChars !== undefined ? { maxChars } : {}),
    } as ExtractPageInput;
    const size = pageSize(page);
    idleCollector?.busy(size);
    if (paced.before(size)) collectAtBudget();
    try {
      return extractPageSync(page);
    } finally {
      paced.counted(size);
    }
  },
  () => {
    if (pacer?.givesBack() === true) {
      collectWhenIdle();
      idleCollector?.idle(true);
      return;
    }
    if (pacer?.due() === true) collectAtBudget();
    // A collection at the budget gave nothing back to the system: the idle one still runs.
    idleCollector?.idle(false);
  },
);
