/**
 * @module web/extract/markdown-prefix — drops the part of a subtree that its Markdown, cut to a number of code points,
 * never shows. A read answers at most `max_chars` of Markdown, but turndown rendered the whole content first: under
 * the soak's load a ~600 KB page took its thread 77 ms with Markdown against 25 ms as text (+12 MiB against +4-5 MiB),
 * on the one thread that takes large pages (docs/benchmarks.md, issue 41). Cut here, one process extracts it with
 * Markdown in 14-15 ms against 27-28.
 *
 * Each character of a text node that is not whitespace (nor a combining mark or a Hangul jamo, which NFC may fold
 * into the letter before them) comes out as at least one code point of the Markdown, in document order, and what
 * turndown adds (markers, URLs, escapes) only lengthens it. So once the text read in document order holds `keep`
 * such characters, what follows cannot change the Markdown's first `keep` code points, except through the few rules
 * that read a whole element: a table's column count pads every row, a code block's or code span's fence depends on
 * the backticks inside. The cut therefore falls after the outermost such element around the point, and after the
 * point's ancestors elsewhere. Turndown's junctions (whitespace at the end of a block, a list item's trailing
 * newline) touch only the last few characters before the cut; the caller keeps a margin beyond what it will show.
 */
import { isTag, isText, setChildren, type AnyNode, type Element, type ParentNode } from "./dom.ts";

/** Elements whose Markdown reads the whole element: cut after them, never inside. */
const WHOLE = new Set(["table", "pre", "code"]);

/** Elements turndown leaves out (markdown.ts createService): their text is not counted. */
const UNRENDERED = new Set(["script", "style", "noscript", "template", "title"]);

/** Whitespace, combining marks and Hangul jamo: characters the Markdown may not keep one for one. */
const UNCOUNTED = /[\s\p{M}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]/u;

/** Code points of `text` that the Markdown keeps at least one for one. */
function countedIn(text: string): number {
  let count = 0;
  for (const char of text) if (!UNCOUNTED.test(char)) count++;
  return count;
}

/**
 * Drops what follows, in document order, the point where `root`'s text holds `keep` counted characters (whole
 * tables and code around that point are kept). Returns whether anything was dropped: when nothing was, the
 * Markdown is the whole content's.
 */
export function dropBeyondMarkdownPrefix(root: Element, keep: number): boolean {
  let counted = 0;
  // Depth first, in document order; the point is the text node where the count reaches `keep`.
  const stack: AnyNode[] = [...root.children].reverse();
  let point: AnyNode | undefined;
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) {
      counted += countedIn(node.data);
      if (counted >= keep) {
        point = node;
        break;
      }
    } else if (isTag(node) && !UNRENDERED.has(node.name)) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    }
  }
  if (point === undefined) return false;
  // The outermost element around the point whose Markdown reads all of it: the cut comes after it.
  let last: AnyNode = point;
  for (let at = point.parent; at !== null && at !== root; at = at.parent) if (isTag(at) && WHOLE.has(at.name)) last = at;
  let dropped = false;
  for (let node: AnyNode = last; node !== root && node.parent !== null; node = node.parent) {
    const parent: ParentNode = node.parent;
    const at = parent.children.indexOf(node as (typeof parent.children)[number]);
    if (at < parent.children.length - 1) {
      setChildren(parent, parent.children.slice(0, at + 1));
      dropped = true;
    }
  }
  return dropped;
}
