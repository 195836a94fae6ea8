/** @module web/threads/extract-pool-protocol — what the extraction pool sends its threads (replies: thread-worker.ts). */
/** A flat object of strings, numbers and booleans (Bun's fast path for postMessage). */
export interface ExtractRequest {
  id: number;
  html: string;
  url: string;
  selector?: string;
  /** ignore_selectors of web/changes as a JSON array (the message stays flat). */
  ignoreSelectors?: string;
  markdown: boolean;
  /** Answer the whole page's links too (web/crawl). */
  pageLinks?: boolean;
  /** The pool's collection budget (ExtractPoolOptions.collectBudget; the same in every request). */
  collectBudget: number;
  /** The pool's idle collection delay (ExtractPoolOptions.idleCollectAfterMs; the same in every request). */
  idleCollectAfterMs: number;
}
