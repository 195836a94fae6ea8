/**
 * @module web/extract/markdown-node — the DOM face turndown reads and edits, over the tree extraction
 * built (dom.ts): each node gets one view (so turndown's identity checks and the flags it sets on nodes
 * hold), whose reads and edits go to the node itself. Only what turndown and our Markdown rules use.
 */
import { getOuterHTML, removeElement } from "domutils";
import { attributeOf, isTag, isText, selectAllIn, type AnyNode, type Element } from "./dom.ts";

const views = new WeakMap<AnyNode, MarkdownNode>();

/** The one view of `node` (null for none). */
export function viewOf(node: AnyNode | null | undefined): MarkdownNode | null {
  if (!node) return null;
  let view = views.get(node);
  if (!view) {
    view = new MarkdownNode(node);
    views.set(node, view);
  }
  return view;
}

const NODE_NAMES: Record<string, string> = { text: "#text", comment: "#comment", root: "#document", cdata: "#cdata-section", directive: "#directive" };

export class MarkdownNode {
  // Set by turndown on the nodes it reads.
  isBlock?: boolean;
  isCode?: boolean;
  isBlank?: boolean;
  flankingWhitespace?: unknown;

  /** textContent, remembered: turndown reads it of every node (is it blank, its edge whitespace), and built afresh each time it cost a walk of the subtree per node (minutes for a page nested thousands deep). */
  private text: string | undefined;
  /** The element children's views, remembered: turndown numbers each list item by its place among them. */
  private elementChildren: MarkdownNode[] | undefined;
  /** The names of the elements inside, remembered: turndown asks for each of twenty names of every blank node. */
  private names: Set<string> | undefined;

  constructor(readonly node: AnyNode) {}

  get nodeType(): number {
    return this.node.nodeType;
  }

  get nodeName(): string {
    return isTag(this.node) ? this.node.name.toUpperCase() : (NODE_NAMES[this.node.type] ?? this.node.type);
  }

  get parentNode(): MarkdownNode | null {
    return viewOf(this.node.parent);
  }

  get firstChild(): MarkdownNode | null {
    return "children" in this.node ? viewOf(this.node.children[0]) : null;
  }

  get nextSibling(): MarkdownNode | null {
    return viewOf(this.node.next);
  }

  get previousSibling(): MarkdownNode | null {
    return viewOf(this.node.prev);
  }

  get childNodes(): MarkdownNode[] {
    return "children" in this.node ? this.node.children.map((child) => viewOf(child) as MarkdownNode) : [];
  }

  /** Element children (turndown numbers list items by their place among them). */
  get children(): MarkdownNode[] {
    this.elementChildren ??= "children" in this.node ? this.node.children.filter(isTag).map((child) => viewOf(child) as MarkdownNode) : [];
    return this.elementChildren;
  }

  get lastElementChild(): MarkdownNode | null {
    const children = this.children;
    return children[children.length - 1] ?? null;
  }

  get textContent(): string {
    if (this.text === undefined) {
      const node = this.node;
      if (isText(node)) this.text = node.data;
      else if (node.type === "comment" || !("children" in node)) this.text = "";
      else {
        let text = "";
        for (const child of node.children) text += (viewOf(child) as MarkdownNode).textContent;
        this.text = text;
      }
    }
    return this.text;
  }

  /**
   * Forgets what this node and its ancestors remember: their text, and when `children` changed, the names inside
   * them. A node's text is built from its children's, so above a node that remembers none, none does.
   */
  private changed(children: boolean): void {
    for (let view: MarkdownNode | null = this; view; view = view.parentNode) {
      if (!children && view.text === undefined) break;
      view.text = undefined;
      if (children) view.names = undefined;
    }
  }

  get data(): string {
    return "data" in this.node ? this.node.data : "";
  }

  set data(value: string) {
    if ("data" in this.node) this.node.data = value;
    this.changed(false);
  }

  get nodeValue(): string | null {
    return isText(this.node) ? this.node.data : null;
  }

  get className(): string {
    return this.element?.attribs.class ?? "";
  }

  /** An input's type (turndown-plugin-gfm's task lists read it). */
  get type(): string {
    return this.element?.attribs.type ?? "";
  }

  get checked(): boolean {
    return this.element?.attribs.checked !== undefined;
  }

  get outerHTML(): string {
    return getOuterHTML(this.node);
  }

  /** The element, when the node is one. */
  get element(): Element | undefined {
    return isTag(this.node) ? this.node : undefined;
  }

  getAttribute(name: string): string | null {
    return this.element ? attributeOf(this.element, name) : null;
  }

  /**
   * A list as long as one when an element of that name is inside, else empty: turndown reads only its length
   * (is there a void or meaningful element inside a blank-looking one).
   */
  getElementsByTagName(name: string): Element[] {
    const element = this.element;
    if (!element) return [];
    this.names ??= new Set(selectAllIn(element, "*").map((inside) => inside.name));
    return this.names.has(name.toLowerCase()) ? [element] : [];
  }

  removeChild(child: MarkdownNode): MarkdownNode {
    removeElement(child.node as Parameters<typeof removeElement>[0]);
    this.elementChildren = undefined;
    this.changed(true);
    return child;
  }

  /** turndown works on a copy of its input; ours is consumed (see renderMarkdownConsuming). */
  cloneNode(): MarkdownNode {
    return this;
  }
}
