/**
 * @module web/extract/content-parse — cheap HTML parsing for extraction. happy-dom's cost is mostly
 * allocating (and collecting) node objects, and a fresh Window per page costs about as much as
 * the parse, so: one long-lived Window per process (never abandoned, so nothing leaks: each page
 * is a DOMParser document that is garbage once dropped), and before parsing, the raw-text
 * elements no extraction reads (script, style, comments, svg, ...) are cut out of the source and
 * whitespace next to block tags (which the text form drops anyway) is not turned into nodes.
 */
import { Window, type Document } from "happy-dom";
import { trimUnreadMarkup } from "./content-trim.ts";
import { clearWaitingCustomElements, elementIdsOf } from "./dom-internals.ts";

const WINDOW_SETTINGS = {
  disableJavaScriptEvaluation: true,
  disableJavaScriptFileLoading: true,
  disableCSSFileLoading: true,
  disableIframePageLoading: true,
  disableComputedStyleRendering: true,
  navigation: { disableMainFrameNavigation: true, disableChildFrameNavigation: true, disableChildPageNavigation: true },
};

let shared: Window | undefined;
/** The window's own property names when new: a page's named element never replaces one of them. */
let ownNames: Set<string> | undefined;
/** Characters of HTML parsed since the last takeCharsParsed (what a page leaves as garbage: collection-pacing.ts). */
let charsParsed = 0;
/** Documents parsed since the last release (see releaseParsedDocuments). */
const parsed: Document[] = [];

function sharedWindow(): Window {
  if (!shared) {
    shared = new Window({ url: "about:blank", settings: WINDOW_SETTINGS });
    ownNames = new Set(Object.getOwnPropertyNames(shared));
  }
  return shared;
}

/**
 * happy-dom keeps two references from the window into every document parsed in it: elements with
 * an id become window[id] (named access), and elements with a hyphenated (custom element) name
 * wait in the custom element registry for a definition. Either would keep a page reachable from the
 * shared window, so both are dropped once its extraction is done (and before any later parse), and
 * a collection right after the answer can free the page. The ids come from each document's own id
 * map: listing the window's hundreds of properties on every page cost more.
 */
export function releaseParsedDocuments(): void {
  const window = shared;
  if (window) {
    const record = window as unknown as Record<string, unknown>;
    for (const document of parsed) {
      for (const id of elementIdsOf(document)) if (!ownNames?.has(id)) delete record[id];
    }
    clearWaitingCustomElements(window);
  }
  parsed.length = 0;
}

/** Characters of HTML parsed since the last call (all tries of a page), and starts the count over. */
export function takeCharsParsed(): number {
  const taken = charsParsed;
  charsParsed = 0;
  return taken;
}

/** Closes the process's parsing window (tests, shutdown); the next parse opens a new one. */
export async function closeParserWindow(): Promise<void> {
  const window = shared;
  shared = undefined;
  ownNames = undefined;
  parsed.length = 0;
  if (window) await window.happyDOM.close();
}

/** Elements whose content is raw text (or foreign markup) no extraction result ever contains. */
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
      }
    }
    from = end;
    RAW_OPEN.lastIndex = end;
  }
  out.push(html.slice(from));
  return out.join("");
}

const CLOSING = new Map(RAW_ELEMENTS.map((name) => [name, new RegExp(`</${name}`, "gi")]));

function indexOfClosing(html: string, name: string, from: number): number {
  const pattern = CLOSING.get(name) as RegExp;
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}

const BLOCK_TAGS =
  "address|article|aside|blockquote|body|br|caption|center|col|colgroup|dd|details|dialog|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|head|header|hgroup|hr|html|legend|li|link|main|menu|meta|nav|ol|option|p|section|select|summary|table|tbody|td|tfoot|th|thead|title|tr|ul";
const SPACE_AFTER_BLOCK = new RegExp(`(<\\/?(?:${BLOCK_TAGS})\\b[^<>]*>)\\s+(?=<)`, "gi");
const SPACE_BEFORE_BLOCK = new RegExp(`>\\s+(?=<\\/?(?:${BLOCK_TAGS})\\b)`, "gi");
const PREFORMATTED = /<(pre|listing|plaintext)\b/i;

/** HTML made cheaper to parse with the same extraction result (see the module comment). */
export function minimizeHtml(html: string): string {
  const cut = trimUnreadMarkup(cutRawElements(html));
  if (PREFORMATTED.test(cut)) return cut;
  return cut.replace(SPACE_AFTER_BLOCK, "$1").replace(SPACE_BEFORE_BLOCK, ">");
}

/** Parses HTML into a fresh document of the shared window (no scripts, styles or frames loaded). */
export function parseHtmlDocument(html: string): Document {
  const window = sharedWindow();
  releaseParsedDocuments();
  charsParsed += html.length;
  const document = new window.DOMParser().parseFromString(html, "text/html") as unknown as Document;
  parsed.push(document);
  closeHeadAtBodyContent(document);
  return document;
}

/** What may stay in <head>; anything else there starts the body (HTML's "in head" insertion mode). */
const HEAD_CONTENT = new Set(["TITLE", "META", "LINK", "STYLE", "SCRIPT", "BASE", "NOSCRIPT", "TEMPLATE", "BGSOUND", "BASEFONT"]);

/**
 * happy-dom's parser leaves a page's content in <head> when the page has no <body> tag or a <head> that is
 * never closed (common in older crawls): `<head><title>…</title><p>text…` gives an empty body. A browser's
 * parser closes the head at the first element that is no head content, or at text, and puts it and all that
 * follows into the body; this does the same after the parse.
 */
function closeHeadAtBodyContent(document: Document): void {
  const { head, body } = document;
  if (!head || !body) return;
  let start = head.firstChild;
  while (start) {
    if (start.nodeType === 1 ? !HEAD_CONTENT.has((start as unknown as { tagName: string }).tagName) : start.nodeType === 3 && (start.textContent ?? "").trim() !== "") break;
    start = start.nextSibling;
  }
  if (!start) return;
  const moving = [];
  for (let node: ChildNode | null = start as unknown as ChildNode; node; node = node.nextSibling) moving.push(node);
  const first = body.firstChild;
  for (const node of moving) body.insertBefore(node as never, first);
}
