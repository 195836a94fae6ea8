/**
 * @module web/extract/dom — the page tree extraction reads and changes: htmlparser2's parser building
 * domhandler's nodes (plain objects with child arrays: a node costs a few fields, where a full DOM
 * builds maps, caches and event targets for each), CSS selectors by css-select, tree changes by
 * domutils. Every other extraction module reaches the tree through these helpers and types, so the
 * DOM-like vocabulary (parent element, contains, closest, text length) is written once.
 */
import { compile } from "css-select";
import { Element, hasChildren, isTag, isText, type AnyNode, type ChildNode, type Document, type ParentNode, type Text } from "domhandler";
import { appendChild as appendTo, prepend, removeElement, textContent } from "domutils";

export { Element, isTag, isText };
export { parseHtml } from "./html-parse.ts";
export type { AnyNode, ChildNode, Document, ParentNode, Text };

/** A new element with no attributes, in no tree. */
export function createElement(name: string): Element {
  return new Element(name, {});
}

/** The node's parent when that is an element (not the document). */
export function parentElementOf(node: AnyNode): Element | null {
  const parent = node.parent;
  return parent !== null && isTag(parent) ? parent : null;
}

/** The node's element children, in order (a copy: changing the tree does not change it). */
export function elementChildrenOf(node: ParentNode): Element[] {
  return node.children.filter(isTag);
}

/** The element's attribute, or null. */
export function attributeOf(element: Element, name: string): string | null {
  return element.attribs[name] ?? null;
}

/** Whether `node` is `ancestor` or lies inside it (the DOM's contains). */
export function contains(ancestor: AnyNode, node: AnyNode): boolean {
  for (let at: AnyNode | null = node; at !== null; at = at.parent) if (at === ancestor) return true;
  return false;
}

/** The element itself or its nearest ancestor element named `name` (lower case), or null. */
export function closestNamed(element: Element, name: string): Element | null {
  for (let at: Element | null = element; at !== null; at = parentElementOf(at)) if (at.name === name) return at;
  return null;
}

/** The concatenated text of the node's text descendants (the DOM's textContent). */
export function textOf(node: AnyNode): string {
  return textContent(node);
}

/** The texts of the node's text descendants joined by spaces: words in separate cells or blocks stay apart. */
export function spacedTextOf(node: AnyNode): string {
  const texts: string[] = [];
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    const next = stack.pop() as AnyNode;
    if (isText(next)) texts.push(next.data);
    else if (hasChildren(next)) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i] as AnyNode);
  }
  return texts.join(" ");
}

/** The node's last text descendant that is not only whitespace, in document order. */
export function lastTextOf(node: AnyNode): Text | undefined {
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    const next = stack.pop() as AnyNode;
    if (isText(next)) {
      if (next.data.trim() !== "") return next;
    } else if (hasChildren(next)) stack.push(...next.children);
  }
  return undefined;
}

/** The length of textOf(node) without building the string. */
export function textLengthOf(node: AnyNode): number {
  if (isText(node)) return node.data.length;
  if (!hasChildren(node)) return 0;
  let length = 0;
  for (const child of node.children) length += textLengthOf(child);
  return length;
}

/** The element sibling before `node`, or null. */
export function previousElementOf(node: AnyNode): Element | null {
  for (let at = node.prev; at !== null; at = at.prev) if (isTag(at)) return at;
  return null;
}

/** Takes `node` out of its parent. */
export function removeNode(node: ChildNode): void {
  removeElement(node);
}

/** Puts `node` (taken from where it was) into `parent` before `next`, or at the end when `next` is null. */
export function insertBefore(parent: ParentNode, node: ChildNode, next: ChildNode | null): void {
  if (next === null) appendTo(parent, node);
  else prepend(next, node);
}

/**
 * Makes `children` the whole child list of `parent`, linking each to it and to its new siblings. The nodes must
 * not stay in another list: the caller gives every list it takes nodes from a new one too (bulk moves in one
 * pass, where a move at a time costs a search of the old list).
 */
export function setChildren(parent: ParentNode, children: ChildNode[]): void {
  parent.children = children;
  let prev: ChildNode | null = null;
  for (const child of children) {
    child.parent = parent;
    child.prev = prev;
    if (prev) prev.next = child;
    prev = child;
  }
  if (prev) prev.next = null;
}

/** Puts `node` (taken from where it was) at the end of `parent`. */
export function appendChild(parent: ParentNode, node: ChildNode): void {
  appendTo(parent, node);
}

type Query = ReturnType<typeof compile<AnyNode, Element>>;
const compiled = new Map<string, Query>();

/** The selector compiled once per process (extraction asks the same few on every page). Throws on an invalid selector. */
function query(selector: string): Query {
  let found = compiled.get(selector);
  if (!found) {
    found = compile<AnyNode, Element>(selector);
    if (compiled.size < 256) compiled.set(selector, found);
  }
  return found;
}

/**
 * The elements inside `root` (not `root` itself) that pass `test`, in document order (the first only when
 * `first`); a template's content is no part of the tree, as in a DOM. A stack of nodes, not css-select's
 * traversal, which moves its stack with shift and unshift: a page nested thousands deep cost a walk of the
 * stack per node, and with a query per level (is there an h1 in this comment thread?) seconds per page.
 */
function collect(root: ParentNode, test: (element: Element) => boolean, first: boolean): Element[] {
  const found: Element[] = [];
  const stack: ChildNode[] = [];
  for (let i = root.children.length - 1; i >= 0; i--) stack.push(root.children[i] as ChildNode);
  while (stack.length > 0) {
    const node = stack.pop() as ChildNode;
    if (!isTag(node)) continue;
    if (test(node)) {
      found.push(node);
      if (first) break;
    }
    if (node.name === "template") continue;
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as ChildNode);
  }
  return found;
}

/** Elements inside `root` (not `root` itself) that match the CSS selector, in document order. */
export function selectAllIn(root: ParentNode, selector: string): Element[] {
  return collect(root, query(selector), false);
}

/** The first element inside `root` that matches the CSS selector, or null. */
export function selectFirstIn(root: ParentNode, selector: string): Element | null {
  return collect(root, query(selector), true)[0] ?? null;
}
