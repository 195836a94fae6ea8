/**
 * @module web/threads/extract-worker — the entry point of one extraction thread (see extract-pool):
 * extracts the page it is sent with `extractHtmlSync` (ignore_selectors removed on its parsed page), forcing full garbage collections at the
 * pool's budget (collection-pacing.ts) and when it has been idle a while after extracting
 * (idle-collect.ts). Listed as an entry point in scripts/build.ts for the binary.
 */
import { collectGarbage } from "../../runtime/memory.ts";
import { CollectionPacer } from "./collection-pacing.ts";
import { extractHtmlSync } from "../extract/extract.ts";
import type { ExtractRequest } from "./extract-pool-protocol.ts";
import { createIdleCollector, type IdleCollector } from "./idle-collect.ts";
import { serveThreadRequests } from "./thread-worker.ts";

let pacer: CollectionPacer | undefined;
let idleCollector: IdleCollector | undefined;

function collect(): void {
  collectGarbage();
  pacer?.collected();
}

/** The pool's settings arrive with every request; the first sets the thread up. */
function pacerFor(request: ExtractRequest): CollectionPacer {
  if (pacer) return pacer;
  if (request.idleCollectAfterMs > 0) idleCollector = createIdleCollector({ afterMs: request.idleCollectAfterMs, collect });
  return (pacer = new CollectionPacer(request.collectBudget));
}

serveThreadRequests(
  (request: ExtractRequest) => {
    const paced = pacerFor(request);
    idleCollector?.busy();
    const { html, url, markdown, selector, ignoreSelectors } = request;
    if (paced.before(html.length)) collect();
    try {
      return extractHtmlSync({
        html,
        url,
        markdown,
        ...(selector !== undefined ? { selector } : {}),
        ...(ignoreSelectors !== undefined ? { ignoreSelectors: JSON.parse(ignoreSelectors) as string[] } : {}),
      });
    } finally {
      paced.counted(html.length);
    }
  },
  () => {
    const due = pacer?.due() === true;
    if (due) collect();
    idleCollector?.idle(due);
  },
);
