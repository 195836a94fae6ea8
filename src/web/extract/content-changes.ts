/**
 * @module web/extract/content-changes — the tree changes one main-content try makes (moves, removals,
 * insertions), recorded so a try that found too little can be undone on the same tree: parsing the
 * page again costs more than undoing a few node moves.
 */
import { appendChild, insertBefore, removeNode, type ChildNode, type Element, type ParentNode } from "./dom.ts";

interface Placement {
  node: ChildNode;
  /** Where the node was before the change; null when the change inserted it. */
  parent: ParentNode | null;
  next: ChildNode | null;
}

export class DomChanges {
  private readonly log: Placement[] = [];

  private record(node: ChildNode): void {
    this.log.push({ node, parent: node.parent, next: node.next });
  }

  /** Removes `node` from its parent. */
  remove(node: ChildNode): void {
    this.record(node);
    removeNode(node);
  }

  /** Inserts `node` (not yet in the tree) into `parent` before `next` (null: at the end). */
  insert(parent: ParentNode, node: ChildNode, next: ChildNode | null): void {
    this.log.push({ node, parent: null, next: null });
    insertBefore(parent, node, next);
  }

  /** Moves `node` (already in the tree) into `parent` before `next` (null: at the end). */
  move(parent: ParentNode, node: ChildNode, next: ChildNode | null): void {
    this.record(node);
    insertBefore(parent, node, next);
  }

  /** Moves `node` (already in the tree) to the end of `parent`. */
  append(parent: Element, node: ChildNode): void {
    this.record(node);
    appendChild(parent, node);
  }

  /** Puts every recorded node back where it was, newest change first, and forgets them. */
  undo(): void {
    for (let i = this.log.length - 1; i >= 0; i--) {
      const { node, parent, next } = this.log[i] as Placement;
      if (parent) insertBefore(parent, node, next);
      else removeNode(node);
    }
    this.log.length = 0;
  }
}
