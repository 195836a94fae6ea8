/**
 * @module web/extract/html-parse — HTML into domhandler's nodes with htmlparser2, end tags scoped as a
 * browser scopes them. htmlparser2 closes an end tag's element wherever it is open: a stray `</tr>` or
 * `</div>` inside a table cell closed the cell, its table and the page layout around it, and an article's
 * paragraphs landed loose in <body>. A browser ignores an end tag whose element lies beyond a boundary
 * of its scope (a table for table parts; a table, cell, caption or embedded object for the rest; also a
 * list for </li>, a button for </p>), so here such a tag is dropped before the parser sees it. (End tags of
 * formatting elements, which a browser resolves with its adoption agency, are scoped like the rest: ignoring
 * them past any block instead kept a <font> open over the rest of the page, wide set 0.9514 against 0.9512.)
 * The parser's own tokenizer is kept; only its end-tag callback is filtered, against the open elements the
 * tree builder holds.
 */
import { DomHandler, type ChildNode, type Document, type Element, type ParentNode } from "domhandler";
import { Parser, Tokenizer, type TokenizerCallbacks } from "htmlparser2";

/** Table parts: their end tags look no further than the nearest table ("table scope"). */
const TABLE_PARTS = new Set(["table", "caption", "colgroup", "tbody", "thead", "tfoot", "tr", "td", "th"]);
const TABLE_SCOPE = new Set(["html", "table", "template"]);
/** The default scope's boundaries: most end tags do not reach past a table, a cell or an embedded object. */
const DEFAULT_SCOPE = new Set(["applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"]);
const LIST_ITEM_SCOPE = new Set([...DEFAULT_SCOPE, "ol", "ul"]);
const BUTTON_SCOPE = new Set([...DEFAULT_SCOPE, "button"]);
/** End tags left to the parser as they are: the document's frame (the page is reshaped after) and `</br>` (a <br>). */
const UNSCOPED = new Set(["html", "head", "body", "br"]);

type Scope = "table" | "default" | "listItem" | "button";

const SCOPES: Record<Scope, ReadonlySet<string>> = { table: TABLE_SCOPE, default: DEFAULT_SCOPE, listItem: LIST_ITEM_SCOPE, button: BUTTON_SCOPE };
const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

/** The scope an end tag looks for its element in. */
function scopeOf(name: string): Scope {
  if (TABLE_PARTS.has(name)) return "table";
  if (name === "li") return "listItem";
  if (name === "p" || name === "button") return "button";
  return "default";
}

/**
 * The deepest an element is put, as Chromium's parser caps it (kMaximumHTMLParserDOMTreeDepth): what opens
 * deeper goes in the element at this depth, after its children. A page nested tens of thousands deep reads as a
 * browser shows it instead of overflowing every walk of the tree.
 */
export const MAX_TREE_DEPTH = 512;

/**
 * The tree builder, keeping where each open element and each scope boundary sits on its stack of open elements,
 * so that an end tag is judged in constant time: a page of thousands of nested elements and stray end tags
 * would otherwise cost a walk down the stack per tag. Nodes deeper than MAX_TREE_DEPTH go in the element there.
 */
class TreeBuilder extends DomHandler {
  /** Stack positions of the open elements of each name, innermost last. */
  private readonly open = new Map<string, number[]>();
  /** Stack positions of the open boundaries of each scope, innermost last. */
  private readonly bounds: Record<Scope, number[]> = { table: [], default: [], listItem: [], button: [] };

  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    const at = this.tagStack.length - 1;
    const positions = this.open.get(name);
    if (positions) positions.push(at);
    else this.open.set(name, [at]);
    for (const scope of SCOPE_NAMES) if (SCOPES[scope].has(name)) this.bounds[scope].push(at);
  }

  override onclosetag(): void {
    const element = this.tagStack[this.tagStack.length - 1] as Element;
    const at = this.tagStack.length - 1;
    this.open.get(element.name)?.pop();
    for (const scope of SCOPE_NAMES) {
      const bound = this.bounds[scope];
      if (bound[bound.length - 1] === at) bound.pop();
    }
    super.onclosetag();
  }

  protected override addNode(node: ChildNode): void {
    // The stack holds the document first: an element at depth MAX_TREE_DEPTH sits at that index.
    if (this.tagStack.length <= MAX_TREE_DEPTH + 1) {
      super.addNode(node);
      return;
    }
    const parent = this.tagStack[MAX_TREE_DEPTH] as ParentNode;
    const previous = parent.children[parent.children.length - 1] ?? null;
    parent.children.push(node);
    node.parent = parent;
    node.prev = previous;
    if (previous) previous.next = node;
    this.lastNode = null;
  }

  /** Whether an end tag `name` closes an open element, as a browser decides (see the module comment). */
  closes(name: string): boolean {
    if (UNSCOPED.has(name)) return true;
    const positions = this.open.get(name);
    const at = positions?.[positions.length - 1];
    if (at === undefined) return false;
    const bound = this.bounds[scopeOf(name)];
    // The element itself may be a boundary of its own scope (</table>, </td>): only one above it stops the tag.
    return (bound[bound.length - 1] ?? -1) <= at;
  }
}

/** Passes every tokenizer event on to the parser, but end tags out of scope (see the module comment). */
class ScopedCallbacks implements TokenizerCallbacks {
  constructor(
    private readonly parser: Parser,
    private readonly builder: TreeBuilder,
    private readonly html: string,
  ) {}

  onclosetag(start: number, endIndex: number): void {
    if (this.builder.closes(this.html.slice(start, endIndex).toLowerCase())) this.parser.onclosetag(start, endIndex);
  }

  onattribdata(start: number, endIndex: number): void {
    this.parser.onattribdata(start, endIndex);
  }
  onattribentity(codepoint: number): void {
    this.parser.onattribentity(codepoint);
  }
  onattribend(quote: Parameters<Parser["onattribend"]>[0], endIndex: number): void {
    this.parser.onattribend(quote, endIndex);
  }
  onattribname(start: number, endIndex: number): void {
    this.parser.onattribname(start, endIndex);
  }
  oncdata(start: number, endIndex: number, endOffset: number): void {
    this.parser.oncdata(start, endIndex, endOffset);
  }
  oncomment(start: number, endIndex: number, endOffset: number): void {
    this.parser.oncomment(start, endIndex, endOffset);
  }
  ondeclaration(start: number, endIndex: number): void {
    this.parser.ondeclaration(start, endIndex);
  }
  onend(): void {
    this.parser.onend();
  }
  onopentagend(endIndex: number): void {
    this.parser.onopentagend(endIndex);
  }
  onopentagname(start: number, endIndex: number): void {
    this.parser.onopentagname(start, endIndex);
  }
  onprocessinginstruction(start: number, endIndex: number): void {
    this.parser.onprocessinginstruction(start, endIndex);
  }
  onselfclosingtag(endIndex: number): void {
    this.parser.onselfclosingtag(endIndex);
  }
  ontext(start: number, endIndex: number): void {
    this.parser.ontext(start, endIndex);
  }
  ontextentity(codepoint: number, endIndex: number): void {
    this.parser.ontextentity(codepoint, endIndex);
  }
  isInForeignContext(): boolean {
    return this.parser.isInForeignContext();
  }
}

/**
 * Parses HTML as a browser's tokenizer reads it (entities decoded, tag and attribute names lower-cased)
 * with end tags scoped (see the module comment). `closed` sees each element once its end is known (its
 * children complete), in the order they close. Each node's `startIndex` is where it starts in `html`.
 */
export function parseHtml(html: string, closed?: (element: Element) => void): Document {
  const builder = new TreeBuilder(undefined, { withStartIndices: true }, closed);
  starting = { builder, html };
  try {
    new Parser(builder, { Tokenizer: ScopedTokenizer as unknown as typeof Tokenizer }).end(html);
  } finally {
    starting = undefined;
  }
  return builder.root;
}

/** The parse whose parser is being constructed (the parser builds its tokenizer in its constructor). */
let starting: { builder: TreeBuilder; html: string } | undefined;

class ScopedTokenizer extends Tokenizer {
  constructor(options: ConstructorParameters<typeof Tokenizer>[0], parser: Parser) {
    const context = starting as { builder: TreeBuilder; html: string };
    super(options, new ScopedCallbacks(parser, context.builder, context.html));
  }
}
