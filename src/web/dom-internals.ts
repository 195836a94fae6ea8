/**
 * @module web/dom-internals — happy-dom's own child arrays and attribute maps, read directly where
 * extraction visits every node. The public accessors wrap them: `childNodes`, `children` and
 * `attributes` each make a Proxy per node on first use, and every index or property read through
 * one runs a trap (and binds a method). The arrays and maps are live (happy-dom updates them as the
 * tree changes) and are only read here. test/web/dom-internals.test.ts checks them against the
 * public accessors, so a happy-dom upgrade that renames them fails there first.
 */
import { PropertySymbol, type Attr, type Element, type Node } from "happy-dom";

/** An element's attributes, in the order they were set. */
export type AttributeMap = Iterable<Attr> & { readonly length: number };

function internal<T>(node: Node | Element, symbol: symbol): T {
  return (node as unknown as Record<symbol, unknown>)[symbol] as T;
}

/** The node's children (elements, text, comments), live. */
export function childNodesOf(node: Node | Element): readonly Node[] {
  return internal<Node[]>(node, PropertySymbol.nodeArray);
}

/** The node's element children, live. */
export function childElementsOf(node: Node | Element): readonly Element[] {
  return internal<Element[]>(node, PropertySymbol.elementArray);
}

/** The element's attributes. */
export function attributeMapOf(element: Element): AttributeMap {
  return internal<AttributeMap>(element, PropertySymbol.attributes);
}
