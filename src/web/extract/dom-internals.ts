/**
 * @module web/extract/dom-internals — every read of happy-dom's internals, in one place. Child arrays and
 * attribute maps are read directly where extraction visits every node: the public accessors
 * `childNodes`, `children` and `attributes` each make a Proxy per node on first use, and every
 * index or property read through one runs a trap (and binds a method). These are live (happy-dom
 * updates them as the tree changes) and only read here. The id map and the custom element
 * registry's waiting list are what content-parse releases after each page.
 * test/web/dom-internals.test.ts checks each against the public API, so a happy-dom upgrade that
 * renames them fails there first.
 */
import { PropertySymbol, type Attr, type Document, type Element, type Node, type Window } from "happy-dom";

/** An element's attributes, in the order they were set. */
export type AttributeMap = Iterable<Attr> & { readonly length: number };

function internal<T>(node: Node | Element, symbol: symbol): T {
  return (node as unknown as Record<symbol, unknown>)[symbol] as T;
}

/** The node's children (elements, text, comments), live. */
export function childNodesOf(node: Node | Element): readonly Node[] {
  return internal<Node[]>(node, PropertySymbol.nodeArray);
}

/**
 * The length of the node's textContent (its text nodes' data, in elements at any depth) without building
 * the string: happy-dom's getter concatenates at every level.
 */
export function textLengthOf(node: Node | Element): number {
  let length = 0;
  for (const child of childNodesOf(node)) {
    if (child.nodeType === 3) length += (child as unknown as { data: string }).data.length;
    else if (child.nodeType === 1) length += textLengthOf(child);
  }
  return length;
}

/** The node's element children, live. */
export function childElementsOf(node: Node | Element): readonly Element[] {
  return internal<Element[]>(node, PropertySymbol.elementArray);
}

/** The element's attributes. */
export function attributeMapOf(element: Element): AttributeMap {
  return internal<AttributeMap>(element, PropertySymbol.attributes);
}

/** The ids the document's elements have (happy-dom's id map, which getElementById reads). */
export function elementIdsOf(document: Document): Iterable<string> {
  return internal<Map<string, unknown> | undefined>(document as unknown as Node, PropertySymbol.elementIdMap)?.keys() ?? [];
}

/** Forgets the elements waiting in the window's custom element registry for a definition. */
export function clearWaitingCustomElements(window: Window): void {
  const waiting = (window.customElements as unknown as Record<symbol, unknown>)[PropertySymbol.callbacks];
  if (waiting instanceof Map) waiting.clear();
}
