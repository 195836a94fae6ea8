/**
 * @module web/extract/html-parse — HTML into domhandler's nodes with htmlparser2, end tags scoped as a
 * browser scopes them. htmlparser2 closes an end tag's element wherever it is open: a stray `</tr>` or
 * `</div>` inside a table cell closed the cell, its table and the page layout around it, and an article's
 * paragraphs landed loose in <body>. A browser ignores an end tag whose element lies beyond a boundary
 * (a table or cell for most tags; for a tag that is no block, any block), so here such a tag is dropped
 * before the parser sees it. The parser's own tokenizer is kept; only its end-tag callback is filtered,
 * against the open elements the tree builder holds.
 */
import { DomHandler, type Document, type Element, type ParentNode } from "domhandler";
import { Parser, Tokenizer, type TokenizerCallbacks } from "htmlparser2";

/** Table parts: their end tags look no further than the nearest table ("table scope"). */
const TABLE_PARTS = new Set(["table", "caption", "colgroup", "tbody", "thead", "tfoot", "tr", "td", "th"]);
const TABLE_SCOPE = new Set(["html", "table", "template"]);
/** The default scope's boundaries: most end tags do not reach past a table, a cell or an embedded object. */
const DEFAULT_SCOPE = new Set(["applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"]);
const LIST_ITEM_SCOPE = new Set([...DEFAULT_SCOPE, "ol", "ul"]);
const BUTTON_SCOPE = new Set([...DEFAULT_SCOPE, "button"]);
/**
 * The "special" elements of the HTML parsing algorithm: the end tag of an element that is not one of them
 * (inline and formatting elements: span, a, b, font) does not close any of them on its way.
 */
const SPECIAL = new Set([
  "address", "applet", "area", "article", "aside", "base", "basefont", "bgsound", "blockquote", "body", "br", "button", "caption",
  "center", "col", "colgroup", "dd", "details", "dir", "div", "dl", "dt", "embed", "fieldset", "figcaption", "figure", "footer",
  "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "iframe", "img",
  "input", "keygen", "li", "link", "listing", "main", "marquee", "menu", "meta", "nav", "noembed", "noframes", "noscript",
  "object", "ol", "p", "param", "plaintext", "pre", "script", "search", "section", "select", "source", "style", "summary",
  "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "title", "tr", "track", "ul", "wbr", "xmp",
]);
/** End tags left to the parser as they are: the document's frame (the page is reshaped after) and `</br>` (a <br>). */
const UNSCOPED = new Set(["html", "head", "body", "br"]);

function boundariesOf(name: string): ReadonlySet<string> {
  if (TABLE_PARTS.has(name)) return TABLE_SCOPE;
  if (name === "li") return LIST_ITEM_SCOPE;
  if (name === "p" || name === "button") return BUTTON_SCOPE;
  return DEFAULT_SCOPE;
}

/** Whether an end tag `name` closes an open element, as a browser decides (open: the document first, the current element last). */
export function closesInScope(name: string, open: readonly ParentNode[]): boolean {
  if (UNSCOPED.has(name)) return true;
  const boundaries = boundariesOf(name);
  for (let i = open.length - 1; i >= 0; i--) {
    const node = open[i] as ParentNode;
    if (node.type === "root") return false;
    const element = node as Element;
    if (element.name === name) return true;
    if (boundaries.has(element.name)) return false;
  }
  return false;
}

/** The tree builder, with its open elements readable. */
class TreeBuilder extends DomHandler {
  get openElements(): readonly ParentNode[] {
    return this.tagStack;
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
    if (closesInScope(this.html.slice(start, endIndex).toLowerCase(), this.builder.openElements)) this.parser.onclosetag(start, endIndex);
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
