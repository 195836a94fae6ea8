/**
 * @module web/extract/content-parse — a page's HTML as the tree extraction reads: htmlparser2 with end
 * tags scoped as a browser scopes them (html-parse.ts), after the raw-text elements no extraction reads
 * (script, style, comments, svg, ...) are cut out of the source, then set in the shape a browser gives
 * every page: one <html> holding a <head> with the head's content and a <body> with everything else, and
 * tables with the sections and rows a browser adds. htmlparser2 builds only the elements the source
 * names, so a page without a <body> tag, or with a <head> never closed (common in older crawls), would
 * otherwise leave its content in <head> or loose under the document.
 */
import { createElement, isTag, isText, parseHtml, removeNode, setChildren, type ChildNode, type Document, type Element, type ParentNode } from "./dom.ts";

export interface ParsedPage {
  document: Document;
  /** The <html> element. */
  root: Element;
  head: Element;
  body: Element;
}

/**
 * Elements whose content is raw text (or foreign markup) no extraction result ever contains; a <noscript> of prose
 * (holdsProse) is the exception: its content stays, its tags go.
 */
const RAW_ELEMENTS = ["script", "style", "noscript", "template", "svg", "textarea", "iframe", "noembed", "noframes", "xmp"];
const RAW_OPEN = new RegExp(`<!--|<(${RAW_ELEMENTS.join("|")})(?=[\\s/>])`, "gi");

/**
 * Cuts comments and raw-text elements out of HTML, linearly (indexOf, no backtracking): an
 * unclosed one runs to the end, as in a browser.
 */
export function cutRawElements(html: string): string {
  const out: string[] = [];
  let from = 0;
  RAW_OPEN.lastIndex = 0;
  for (let match = RAW_OPEN.exec(html); match !== null; match = RAW_OPEN.exec(html)) {
    out.push(html.slice(from, match.index));
    let end: number;
    if (match[0] === "<!--") {
      const close = html.indexOf("-->", match.index + 4);
      end = close < 0 ? html.length : close + 3;
    } else {
      const name = (match[1] as string).toLowerCase();
      const close = indexOfClosing(html, name, RAW_OPEN.lastIndex);
      if (close < 0) end = html.length;
      else {
        const gt = html.indexOf(">", close);
        end = gt < 0 ? html.length : gt + 1;
        if (name === "noscript") {
          const open = html.indexOf(">", RAW_OPEN.lastIndex);
          const inner = open >= 0 && open < close ? html.slice(open + 1, close) : "";
          // Its own raw elements cut too (the call starts RAW_OPEN over; it is set past this element below).
          if (holdsProse(inner)) out.push(cutRawElements(inner));
        }
      }
    }
    from = end;
    RAW_OPEN.lastIndex = end;
  }
  out.push(html.slice(from));
  return out.join("");
}

/**
 * Least characters of text a <noscript> with paragraphs needs to be read: we run no scripts, so a page that renders its
 * article from a script template ships it for us there (Blogger: security.googleblog.com, 3,900 characters, nothing
 * else in its article body). At 200 a notice ("This story contains media that requires JavaScript and Adobe Flash
 * ... please enable them") came back on a Dragnet page; at 500 no page of the dev, wide or unseen sets changes.
 */
const MIN_NOSCRIPT_PROSE = 500;

/** Whether a <noscript>'s markup is prose: paragraphs, and MIN_NOSCRIPT_PROSE characters of text outside tags. */
function holdsProse(markup: string): boolean {
  if (!/<p[\s>]/i.test(markup)) return false;
  return markup.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim().length >= MIN_NOSCRIPT_PROSE;
}

const CLOSING = new Map(RAW_ELEMENTS.map((name) => [name, new RegExp(`</${name}`, "gi")]));

function indexOfClosing(html: string, name: string, from: number): number {
  const pattern = CLOSING.get(name) as RegExp;
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}

const TITLE_OPEN = /<title(?=[\s/>])/i;
/** An end tag the tokenizer takes as the title's: the name, then a space, "/" or ">" ("</titlevalue" is text). */
const TITLE_CLOSE = /<\/title[\s/>]/gi;

/**
 * A <title> that is never closed ends where the next tag starts. Older crawls carry ad scripts cut into
 * the head ("<title>Story'?' + OAS_query + '\"><\/SCRIPT>"): to the tokenizer, which reads a title's
 * content as text up to its end tag, the rest of the page would be the title and the body empty.
 */
export function closeUnclosedTitle(html: string): string {
  const open = TITLE_OPEN.exec(html);
  if (!open) return html;
  const startEnd = html.indexOf(">", open.index);
  if (startEnd < 0) return html;
  TITLE_CLOSE.lastIndex = startEnd;
  if (TITLE_CLOSE.test(html)) return html;
  const next = html.indexOf("<", startEnd + 1);
  if (next < 0) return html;
  return `${html.slice(0, next)}</title>${html.slice(next)}`;
}

/** The source extraction parses: raw-text elements and comments cut, an unclosed title closed. */
export function cutUnreadMarkup(html: string): string {
  return closeUnclosedTitle(cutRawElements(html));
}

/** What may stay in <head>; anything else there starts the body (HTML's "in head" insertion mode). */
const HEAD_CONTENT = new Set(["title", "meta", "link", "style", "script", "base", "noscript", "template", "bgsound", "basefont"]);

function isHeadContent(node: ChildNode): boolean {
  if (isTag(node)) return HEAD_CONTENT.has(node.name);
  return !isText(node) || node.data.trim() === "";
}

const TABLE_SECTIONS = new Set(["thead", "tbody", "tfoot"]);

function isBlankText(node: ChildNode): boolean {
  return isText(node) && node.data.trim() === "";
}

/**
 * `parent`'s children with each run of `members` (blank text between them included) wrapped in a new `wrapper`
 * element; undefined when there is none.
 */
function wrapRuns(parent: ParentNode, members: ReadonlySet<string>, wrapper: string): ChildNode[] | undefined {
  let out: ChildNode[] | undefined;
  let run: ChildNode[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const element = createElement(wrapper);
    setChildren(element, run);
    (out as ChildNode[]).push(element);
    run = [];
  };
  const children = parent.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as ChildNode;
    if (isTag(child) && members.has(child.name)) {
      out ??= children.slice(0, i);
      run.push(child);
    } else if (run.length > 0 && isBlankText(child)) run.push(child);
    else {
      if (out) {
        flush();
        out.push(child);
      }
    }
  }
  if (out) flush();
  return out;
}

const ROW_PARTS = new Set(["tr", "td", "th"]);
const CELLS = new Set(["td", "th"]);

/**
 * The sections and rows a browser adds to a table: rows (or cells) written straight in <table> go in a
 * <tbody>, cells straight in a section in a <tr>. Detection passes paragraph scores five levels up, so a
 * missing level moved the best-scored block from the table to a cell.
 */
function addImplicitTableParts(table: Element): void {
  const wrapped = wrapRuns(table, ROW_PARTS, "tbody");
  if (wrapped) setChildren(table, wrapped);
  for (const section of table.children) {
    if (!isTag(section) || !TABLE_SECTIONS.has(section.name)) continue;
    const rows = wrapRuns(section, CELLS, "tr");
    if (rows) setChildren(section, rows);
  }
}

/** Puts the element's children where it is, and takes it out. */
function unwrap(element: Element): void {
  const parent = element.parent as ParentNode;
  const siblings = parent.children;
  const at = siblings.indexOf(element);
  setChildren(parent, [...siblings.slice(0, at), ...element.children, ...siblings.slice(at + 1)]);
  element.children = [];
  element.parent = element.prev = element.next = null;
}


/** The element that starts first in the source. */
function firstOpened(elements: Element[]): Element | undefined {
  let first: Element | undefined;
  for (const element of elements) if (!first || (element.startIndex ?? Infinity) < (first.startIndex ?? Infinity)) first = element;
  return first;
}

/**
 * Ruby annotations: the reading set over a word (<rt>, Japanese furigana, Chinese pinyin) and the brackets shown
 * where ruby is not supported (<rp>). A gloss on the text beside it, not text: read inline it doubles every
 * annotated word ("子こども" for "子ども"), and no phrase of the page can be found in what is returned.
 */
const RUBY_ANNOTATIONS = new Set(["rt", "rp"]);

/** Parses HTML into the shape described in the module comment. */
export function parsePage(html: string): ParsedPage {
  const tags: Record<"html" | "head" | "body", Element[]> = { html: [], head: [], body: [] };
  const annotations: Element[] = [];
  const document = parseHtml(html, (element) => {
    if (element.name === "table") addImplicitTableParts(element);
    else if (element.name === "html" || element.name === "head" || element.name === "body") tags[element.name].push(element);
    else if (RUBY_ANNOTATIONS.has(element.name)) annotations.push(element);
  });
  for (const element of annotations) removeNode(element);
  // A browser makes one <html>, <head> and <body> of a page, whatever tags it repeats (two <html> tags from
  // conditional comments, a <body> inside a wrapper): a repeated tag adds nothing but attributes, its
  // content stays where it is. <body> tags are all set aside: the body is made below.
  const firstHtml = firstOpened(tags.html);
  const keptHtml = firstHtml?.parent === document ? firstHtml : undefined;
  for (const element of tags.html) if (element !== keptHtml) unwrap(element);
  const firstHead = firstOpened(tags.head);
  const keptHead = firstHead?.parent === (keptHtml ?? document) ? firstHead : undefined;
  for (const element of tags.head) if (element !== keptHead) unwrap(element);
  const attribs = firstOpened(tags.body)?.attribs ?? {};
  for (const element of tags.body) unwrap(element);

  // Everything outside <html> but the doctype goes in it (content after </html> is the body's too).
  const top = document.children;
  const root = keptHtml ?? createElement("html");
  if (!keptHtml && firstHtml) root.attribs = { ...firstHtml.attribs };
  const before: ChildNode[] = [];
  const after: ChildNode[] = [];
  let passed = false;
  for (const child of top) {
    if (child === root) passed = true;
    else if (child.type !== "directive") (passed ? after : before).push(child);
  }
  const inRoot = [...before, ...root.children, ...after];
  setChildren(document, [...top.filter((child) => child.type === "directive"), root]);

  // The head keeps its head content up to the first thing that is not (without a <head>, the page's leading head content).
  let head = keptHead;
  let headContent: ChildNode[];
  let bodyContent: ChildNode[];
  if (head) {
    const stray = head.children.findIndex((child) => !isHeadContent(child));
    headContent = stray < 0 ? head.children : head.children.slice(0, stray);
    const rest = inRoot.filter((child) => child !== head);
    bodyContent = stray < 0 ? rest : head.children.slice(stray).concat(rest);
  } else {
    head = createElement("head");
    const first = inRoot.findIndex((child) => !isHeadContent(child));
    headContent = first < 0 ? inRoot : inRoot.slice(0, first);
    bodyContent = first < 0 ? [] : inRoot.slice(first);
  }
  const body = createElement("body");
  body.attribs = { ...attribs };
  setChildren(head, headContent);
  setChildren(body, bodyContent);
  setChildren(root, [head, body]);
  return { document, root, head, body };
}
