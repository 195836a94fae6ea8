/**
 * @module web/threads/collection-pacing — when an extraction thread forces a full garbage collection.
 * A page's tree outlives JavaScriptCore's quick young-generation collections when one runs while the
 * page is being read, so it is freed only by a full one, and a thread left to the engine's own pacing
 * grows its heap far past what it needs. The thread therefore counts what its pages left behind and
 * collects at a budget: after the page that reaches it, and before a page that would take it past the
 * budget (so a large page is not parsed on top of the garbage of the pages before it). What a page
 * leaves is counted by its HTML's length: the tree, the source's copies and the text are all in
 * proportion to it.
 */

export class CollectionPacer {
  /** Characters of HTML extracted since the last full collection. */
  private since = 0;
  /** Characters of HTML of the page counted last (the one just answered). */
  private last = 0;

  /**
   * `budget`: the characters of HTML between two forced collections (0: never forced). `giveBackFrom`: the characters
   * from which a page is followed at once by a collection that gives its memory back to the system (0: never).
   */
  constructor(
    private readonly budget: number,
    private readonly giveBackFrom = 0,
  ) {}

  /**
   * Whether the page just answered is so large that its garbage is given back at once: it is most of what the
   * thread holds, and the budget's collection only frees it for the next pages, keeping it resident.
   */
  givesBack(): boolean {
    return this.giveBackFrom > 0 && this.last >= this.giveBackFrom;
  }

  /** Whether to collect before a page of `htmlLength`: it would take the thread past the budget on top of earlier pages' garbage. */
  before(htmlLength: number): boolean {
    return this.budget > 0 && this.since > 0 && this.since + htmlLength > this.budget;
  }

  /** A page of `htmlLength` was extracted. */
  counted(htmlLength: number): void {
    this.since += htmlLength;
    this.last = htmlLength;
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
