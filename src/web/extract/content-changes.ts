/**
 * @module web/extract/content-changes — the DOM changes one main-content try makes (moves, removals,
 * insertions), recorded so a try that found too little can be undone on the same document:
 * parsing the page again costs as much as the first parse, undoing costs a few node moves.
 */
import type { Element, Node } from "happy-dom";

interface Placement {
  node: Node;
  /** Where the node was before the change; null when the change inserted it. */
  parent: Node | null;
  next: Node | null;
}

export class DomChanges {
  private readonly log: Placement[] = [];

  private record(node: Node): void {
    this.log.push({ node, parent: node.parentNode, next: node.nextSibling });
  }

  /** Removes `node` from its parent. */
  remove(node: Element): void {
    this.record(node as unknown as Node);
    node.remove();
  }

  /** Inserts `node` (not yet in the document) into `parent` before `next` (null: at the end). */
  insert(parent: Element, node: Element, next: Node | null): void {
    this.log.push({ node: node as unknown as Node, parent: null, next: null });
    parent.insertBefore(node as never, next as never);
  }

  /** Moves `node` (already in the document) to the end of `parent`. */
  append(parent: Element, node: Element): void {
    this.record(node as unknown as Node);
    parent.appendChild(node as never);
  }

  /** Puts every recorded node back where it was, newest change first, and forgets them. */
  undo(): void {
    for (let i = this.log.length - 1; i >= 0; i--) {
      const { node, parent, next } = this.log[i] as Placement;
      if (parent) parent.insertBefore(node as never, next as never);
      else (node as unknown as Element).remove();
    }
    this.log.length = 0;
  }
}
