/**
 * @module web/extract/data-text — a script's data left as page text: a JSON blob whose string held a literal
 * "</script>" ends its script there, as a browser ends it, and the rest of the blob is text of the body, often the
 * longest on the page (chaos-2017-baseball-2: 147,000 characters of a related-videos feed won the page). Prose
 * names a key and its value ("key": "value") rarely; data does so every few words. Code shown as code (pre, code)
 * is the page's content and stays.
 */
import { isTag, isText, removeNode, type AnyNode, type Element, type Text } from "./dom.ts";

/** Shortest text judged: a short quoted phrase with a colon is prose as often as not. */
const MIN_DATA_CHARS = 200;
/** Least key-value pairs per 1,000 characters of data (the blobs seen hold 20-35; prose about none). */
const MIN_PAIRS_PER_1000 = 10;
const KEY_VALUE = /"\s*:\s*["{[\dtfn-]/g;
const SHOWN_AS_CODE = new Set(["pre", "code", "samp", "kbd", "textarea"]);

function isData(text: string): boolean {
  if (text.length < MIN_DATA_CHARS) return false;
  const pairs = text.match(KEY_VALUE)?.length ?? 0;
  return pairs >= 5 && (pairs * 1000) / text.length >= MIN_PAIRS_PER_1000;
}

/** Removes the text nodes under `root` that are a script's data, not text (see the module comment). */
export function removeDataText(root: Element): void {
  const found: Text[] = [];
  // A stack, not recursion: a page nested tens of thousands deep is still read.
  const pending: AnyNode[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (isText(node)) {
      if (isData(node.data)) found.push(node);
    } else if (isTag(node) && !SHOWN_AS_CODE.has(node.name)) {
      for (const child of node.children) pending.push(child);
    }
  }
  for (const node of found) removeNode(node);
}
