/** @module web/threads/extract-pool-protocol — what the extraction pool sends its threads (replies: thread-worker.ts). */
/** A flat object of strings, numbers and booleans (Bun's fast path for postMessage), or a page's bytes (transferred). */
export interface ExtractRequest {
  id: number;
  /** The page's HTML, when the caller decoded it; else `bytes`. */
  html?: string;
  /** The page's bytes, decoded on the thread (extract-page.ts), with the response's charset, status and headers (JSON). */
  bytes?: Uint8Array;
  charset?: string;
  status?: number;
  headers?: string;
  url: string;
  selector?: string;
  /** ignore_selectors of web/changes as a JSON array (the message stays flat). */
  ignoreSelectors?: string;
  markdown: boolean;
  /** Answer the whole page's links too (web/crawl). */
  pageLinks?: boolean;
  /** Cut text and Markdown to this many code points on the thread. */
  maxChars?: number;
  /** The pool's collection budget (ExtractPoolOptions.collectBudget; the same in every request). */
  collectBudget: number;
  /** The pool's idle collection delay (ExtractPoolOptions.idleCollectAfterMs; the same in every request). */
  idleCollectAfterMs: number;
  /** When an idle thread shrinks (ExtractPoolOptions.idleShrinkAfterChars and idleShrinkAfterMs). */
  idleShrinkAfterChars: number;
  idleShrinkAfterMs: number;
  /** A page of at least this many characters is followed by a collection that gives its memory back (ExtractPoolOptions.giveBackAfterChars; 0: never). */
  giveBackAfterChars: number;
}
