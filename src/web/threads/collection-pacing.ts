/**
 * @module web/threads/collection-pacing — when an extraction thread forces a full garbage collection.
 * A page's DOM outlives JavaScriptCore's quick young-generation collections, so it is freed only
 * by a full one, and a thread left to the engine's own pacing grew to ~500 MB of RSS. The thread
 * therefore counts what its pages left behind and collects at a budget: after the page that
 * reaches it, and before a page that would take it past the budget (so a large page is not parsed
 * on top of the garbage of the pages before it).
 *
 * What a page leaves is counted by what was parsed, not by the HTML's length: the first main-content
 * try parses only what is left after pruning, from 10% (p10) to 55% (p90) of a dev page's
 * characters (27% overall; scripts/bench/dom-heap.ts prints these), and happy-dom's nodes are most
 * of the garbage. The cut, trimmed and pruned copies of the source add a sixteenth of its length.
 */

/** What a page counts once extracted: the characters parsed plus a sixteenth of the HTML's length. */
export function pageWeight(charsParsed: number, htmlLength: number): number {
  return charsParsed + htmlLength / 16;
}

/** A page's weight guessed before extraction: the p90 share of a page the first try parses. */
export function estimatedPageWeight(htmlLength: number): number {
  return pageWeight(htmlLength * 0.55, htmlLength);
}

export class CollectionPacer {
  /** Weight counted since the last full collection. */
  private since = 0;

  /** `budget`: the weight between two forced collections (0: never forced). */
  constructor(private readonly budget: number) {}

  /** Whether to collect before a page of `estimate`: it would take the thread past the budget on top of earlier pages' garbage. */
  before(estimate: number): boolean {
    return this.budget > 0 && this.since > 0 && this.since + estimate > this.budget;
  }

  /** A page of `weight` was extracted. */
  counted(weight: number): void {
    this.since += weight;
  }

  /** Whether the budget is reached: collect after answering. */
  due(): boolean {
    return this.budget > 0 && this.since >= this.budget;
  }

  /** A full collection ran (forced at the budget, or when idle): the count starts over. */
  collected(): void {
    this.since = 0;
  }
}
