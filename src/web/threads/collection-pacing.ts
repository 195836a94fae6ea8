/**
 * @module web/threads/collection-pacing — when an extraction thread forces a full garbage collection.
 * A page's tree outlives JavaScriptCore's quick young-generation collections when one runs while the
 * page is being read, so it is freed only by a full one, and a thread left to the engine's own pacing
 * grows its heap far past what it needs. The thread therefore counts what its pages left behind and
 * collects at a budget: after the page that reaches it, and before a page that would take it past the
 * budget (so a large page is not parsed on top of the garbage of the pages before it). What a page
 * leaves is counted by its HTML's length: the tree, the source's copies and the text are all in
 * proportion to it.
 *
 * A large page (`release.afterChars`, the pool's LARGE_PAGE_CHARS) answered while the process's resident size is at
 * least `release.aboveBytes` is collected right after with a collection that also gives the freed memory back to the
 * system (runtime/memory.ts collectGarbage): freed pages otherwise stay resident, and one such page's DOM on the
 * thread that takes them, on top of what the other threads keep, made the soak's peak RSS. Giving back after every
 * large page cost the soak 6-7 % of its calls (the next page faults its memory in again), hence only near the top
 * (extract-pool.ts RELEASE_LARGE_PAGE_ABOVE_BYTES; docs/benchmarks.md, issue 41).
 */

/** When a large page's memory is given back right after it (see above). */
export interface ReleaseAfterLargePage {
  /** Characters of HTML from which a page is large. */
  afterChars: number;
  /** The process's resident size from which it is given back. */
  aboveBytes: number;
  /** The process's resident size now. */
  rss(): number;
}

export class CollectionPacer {
  /** Characters of HTML extracted since the last full collection. */
  private since = 0;

  /** Whether the last page counted was large (see releaseDue). */
  private lastLarge = false;

  /**
   * `budget`: the characters of HTML between two forced collections (0: never forced). `release`: when a large page
   * is collected after, its memory given back (absent: never).
   */
  constructor(
    private readonly budget: number,
    private readonly release?: ReleaseAfterLargePage,
  ) {}

  /** Whether to collect before a page of `htmlLength`: it would take the thread past the budget on top of earlier pages' garbage. */
  before(htmlLength: number): boolean {
    return this.budget > 0 && this.since > 0 && this.since + htmlLength > this.budget;
  }

  /** A page of `htmlLength` was extracted. */
  counted(htmlLength: number): void {
    this.since += htmlLength;
    this.lastLarge = this.release !== undefined && htmlLength >= this.release.afterChars;
  }

  /** Whether the page just counted was large and the process near its top: collect after answering, giving the memory back. */
  releaseDue(): boolean {
    return this.lastLarge && this.release!.rss() >= this.release!.aboveBytes;
  }

  /** Whether the budget is reached: collect after answering. */
  due(): boolean {
    return this.budget > 0 && this.since >= this.budget;
  }

  /** A full collection ran (forced at the budget, or when idle): the count starts over. */
  collected(): void {
    this.since = 0;
    this.lastLarge = false;
  }
}
