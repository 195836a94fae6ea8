/**
 * @module web/extract/content-tail — what trails the cleaned content: lines of links to other stories after the
 * last prose, and headings or label lines left with nothing after them (the titles of boxes cleaning removed). A
 * rule that removes from the end of the content belongs here; content-clean.ts calls these after its walk.
 */
import type { DomChanges } from "./content-changes.ts";
import { isTag, isText, lastTextOf, parentElementOf, selectAllIn, selectFirstIn, textOf, type ChildNode, type Element, type Text } from "./dom.ts";
import { BLOCK_TAGS, HEADING_TAGS, MIN_PART_PROSE, linkDensity, ownProse, type Walk } from "./content-score.ts";

/** Least links in a trailing run of link lines taken for other stories. */
const MIN_TRAILING_LINKS = 1;
/** Least characters of the text before trailing link lines, ending in a colon, taken for a sentence that introduces them. */
const MIN_INTRODUCING_CHARS = 40;

/**
 * Lines of links loose at the end of the content (`<span><a>Other story</a></span><br>` after the article's
 * last paragraph, in the same table cell): more headlines, which conditional cleaning never sees as they sit
 * in no block of their own, or one or two paragraphs that are each a link ("<p><a>Other story</a></p>", "Mehr: <a>…</a>"
 * after the story). Removed when every line after the last prose is a link line, the content keeps some prose of its
 * own before them, and no sentence introduces them ("… sign the petition: <a>…</a>"). Lists are left to conditional
 * cleaning, which already judged them (a list the text introduces stays). At least three links at first: one alone
 * gave trafeval fp -8 +2, dev 0.9422 -> 0.9427, wide 0.9526 -> 0.9528 (measured in the commit that lowered it).
 */
export function removeTrailingLinkLines(walk: Walk, root: Element, changes: DomChanges): void {
  const tail: ChildNode[] = [];
  const counted = { links: 0 };
  if (collectLinkTail(walk, root, tail, counted) || counted.links < MIN_TRAILING_LINKS) return;
  const info = walk.infos.get(root);
  if (!info || ownProse(info) < MIN_PART_PROSE) return;
  // Link lines a sentence introduces ("Unterschreibt bitte diese Petition: <a>…</a>") are the text's; a label's
  // ("Mehr: <a>…</a>", "Lesen Sie auch: <a>…</a>") are other stories.
  const first = tail[tail.length - 1];
  const before = first ? textBefore(first, root).trim() : "";
  if (before.length >= MIN_INTRODUCING_CHARS && before.endsWith(":")) return;
  for (const node of tail) changes.remove(node);
}

/** The last text before `node` inside `root`, in document order, that is not only whitespace ("" when none). */
function textBefore(node: ChildNode, root: Element): string {
  for (let at: ChildNode | null = node; at && at !== root; at = at.parent as ChildNode | null) {
    for (let prev = at.prev; prev; prev = prev.prev) {
      const text = isText(prev) ? prev.data : isTag(prev) ? (lastTextOf(prev)?.data ?? "") : "";
      if (text.trim() !== "") return text;
    }
  }
  return "";
}

const LISTS = new Set(["ul", "ol", "dl"]);

/**
 * Gathers in `tail` the nodes at the end of `element` that hold only link lines (blank text, breaks, rules,
 * images, inline elements that are nearly all link text, blocks made only of those); whether that is all of it.
 */
function collectLinkTail(walk: Walk, element: Element, tail: ChildNode[], counted: { links: number }): boolean {
  const children = element.children;
  for (let i = children.length - 1; i >= 0; i--) {
    const node = children[i] as ChildNode;
    if (isText(node)) {
      if (node.data.trim() !== "") return false;
    } else if (isTag(node) && node.name !== "br" && node.name !== "hr" && node.name !== "img") {
      const info = walk.infos.get(node);
      if (!info || LISTS.has(node.name)) return false;
      if (BLOCK_TAGS.has(node.name)) {
        const mark = tail.length;
        if (!collectLinkTail(walk, node, tail, counted)) return false;
        tail.length = mark;
      } else {
        if (info.chars === 0 || linkDensity(info) < 0.9) return false;
        counted.links += node.name === "a" ? 1 : selectAllIn(node, "a").length;
      }
    }
    tail.push(node);
  }
  return true;
}

/** Most headings removed from the end of the content (a box's title over a subtitle, each left without its box). */
const MAX_TRAILING_HEADINGS = 3;
/** Longest heading taken for a box's title. */
const MAX_TRAILING_HEADING_CHARS = 120;

/**
 * Headings that end the content, nothing after them: the titles of boxes cleaning removed, or that the page
 * left empty for a script to fill ("Audios and videos on the topic", "Teilnehmende Blogs:", "Weitere Informationen
 * zum Coronavirus in Thüringen:", "Über den Autor"). A heading heads what follows it; with nothing following, it
 * heads nothing of the content. So does a short line that ends with a colon ("Related links:", "Quellenangaben:"),
 * the label of a list that went. Not a heading that holds blocks (malformed pages wrap paragraphs in one: cleaneval
 * final-326 lost 0.108), nor a sentence set as a heading (a pull quote ending "… Es stützt seine Version.").
 */
export function removeTrailingHeadings(root: Element, changes: DomChanges): void {
  for (let i = 0; i < MAX_TRAILING_HEADINGS; i++) {
    const last = lastTextOf(root);
    if (!last) return;
    let heading: Element | null = null;
    for (let at = parentElementOf(last); at && at !== root; at = parentElementOf(at)) if (HEADING_TAGS.has(at.name)) heading = at;
    if (!heading) {
      const label = labelLineOf(last, root);
      if (!label) return;
      changes.remove(label);
      continue;
    }
    const text = textOf(heading).trim();
    if (text.length > MAX_TRAILING_HEADING_CHARS || SENTENCE_END.test(text) || selectFirstIn(heading, "p,div,ul,ol,dl,table,br")) return;
    changes.remove(heading);
  }
}

/** Longest line taken for a label that introduces what follows it ("Quellenangaben:", "Mehr zum Thema:"). */
const MAX_LABEL_LINE_CHARS = 80;

/** The block (below `root`) that holds `text` when it is a short line ending with a colon: a label that introduces what follows. */
function labelLineOf(text: Text, root: Element): Element | undefined {
  let block: Element | null = null;
  for (let at = parentElementOf(text); at && at !== root; at = parentElementOf(at)) {
    if (BLOCK_TAGS.has(at.name)) {
      block = at;
      break;
    }
  }
  if (!block) return undefined;
  const line = textOf(block).trim();
  return line.length <= MAX_LABEL_LINE_CHARS && line.endsWith(":") ? block : undefined;
}

/** A sentence's end ("." or "!", quotes and closing brackets aside); a box's title ends without one, or with "?" or ":". */
const SENTENCE_END = /[.!…][\s"'”“»«’)\]]*$/u;
