/**
 * @module web/extract/content-detect — finds a page's main content in one walk over the DOM, in the
 * manner of Readability (paragraph scores flow to their ancestors; the best-scored container,
 * weighed by its link density, wins; siblings that score well join it) but without cloning or
 * re-walking the document: every element's text, link-text, comma, paragraph, image and list
 * counts are gathered in the same pass, and the winner is then cleaned of chrome (comment
 * threads, sharing, related lists, link-dense blocks) from those counts.
 */
import type { Document, Element, Node } from "happy-dom";
import type { DomChanges } from "./content-changes.ts";
import { titleHeadingAmong } from "./content-title.ts";
import { childElementsOf, childNodesOf } from "./dom-internals.ts";
import { CHROME_NAMED, CHROME_TAGS, CONTENT_NAMED, NEVER_CONTENT, NEVER_CONTENT_TAGS, classifyElement, contentClassTokens, headingNamesChrome, isCommentThread, isCommentThreadTitle, isDroppedByName, namesCommentThread, marksContent, weighNames } from "./content-signals.ts";

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

/** Elements that start a new block of text (a paragraph's text never crosses one). */
const BLOCK_TAGS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "CAPTION", "CENTER", "DD", "DETAILS", "DIV", "DL", "DT", "FIELDSET",
  "FIGCAPTION", "FIGURE", "FOOTER", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HGROUP", "HR", "LI", "MAIN", "OL", "P", "PRE",
  "SECTION", "SUMMARY", "TABLE", "TBODY", "TD", "TFOOT", "TH", "THEAD", "TR", "UL", "BR",
]);
const HEADING_TAGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);
/** Never chosen as the content container (they hold it or are too small to). */
const NOT_CANDIDATES = new Set(["HTML", "BODY", "A", "SPAN", "B", "I", "EM", "STRONG", "FONT", "TBODY", "THEAD", "TR"]);
/** Containers the conditional cleaning judges (Readability's list plus sections). */
const CLEANED_TAGS = new Set(["DIV", "SECTION", "TABLE", "UL", "OL", "DL", "ASIDE", "HEADER", "FOOTER", "FIGURE", "CENTER"]);
const COMMA = /[,\u060C\uFE50\uFE10\uFE11\u2E41\u2E34\u2E32\uFF0C\u3001]/g;
const MIN_PARAGRAPH_CHARS = 25;
const MIN_CANDIDATE_CHARS = 100;

interface Info {
  element: Element;
  chars: number;
  linkChars: number;
  commas: number;
  /** Characters of text not inside a block descendant. */
  inlineChars: number;
  inlineLinkChars: number;
  inlineCommas: number;
  paragraphs: number;
  images: number;
  listItems: number;
  embeds: number;
  headingChars: number;
  /** Descendants named as content (class/id/itemprop) or h1 headlines. */
  contentMarks: number;
  /** The element and its descendants that make what they hold content (marksContent: named as content, articles). */
  contentBlocks: number;
  score: number;
  candidate: boolean;
  /**
   * An inline element whose text two or more <br> split: its runs in order, the first to be joined to the text
   * before it and the last to the text after it (undefined when nothing split it).
   */
  runs: TextRun[] | undefined;
}

/** A paragraph score waiting on the fate of the chrome-named element it sits in. */
interface PendingScore {
  score: number;
  /** Nearest first, at most five. */
  ancestors: Info[];
}

export interface DetectOptions {
  /** Drop elements whose class or id names page chrome (off for the relaxed second try). */
  useNames: boolean;
  /** The page's <title>, to find the heading that holds it (see preferTitled). */
  title?: string;
}

interface Walk {
  infos: Map<Element, Info>;
  dropped: Set<Element>;
  candidates: Info[];
  useNames: boolean;
  /** One list per chrome-named element being visited (innermost last). */
  pending: PendingScore[][];
  /** The h1-h3 elements visited, in document order (see preferTitled). */
  headings: Element[];
}

function createInfo(element: Element): Info {
  return {
    element, chars: 0, linkChars: 0, commas: 0, inlineChars: 0, inlineLinkChars: 0, inlineCommas: 0,
    paragraphs: 0, images: 0, listItems: 0, embeds: 0, headingChars: 0, contentMarks: 0, contentBlocks: 0, score: 0, candidate: false,
    runs: undefined,
  };
}

function baseScore(tag: string): number {
  switch (tag) {
    case "DIV": case "ARTICLE": case "MAIN": case "SECTION":
      return 5;
    case "PRE": case "TD": case "BLOCKQUOTE":
      return 3;
    case "ADDRESS": case "OL": case "UL": case "DL": case "DD": case "DT": case "LI": case "FORM":
      return -3;
    case "H1": case "H2": case "H3": case "H4": case "H5": case "H6": case "TH":
      return -5;
    default:
      return 0;
  }
}

function countCommas(text: string): number {
  const found = text.match(COMMA);
  return found ? found.length : 0;
}

function isDroppedTag(tag: string, inArticle: boolean): boolean {
  return NEVER_CONTENT_TAGS.has(tag) || tag === "ASIDE" || (CHROME_TAGS.has(tag) && !inArticle);
}

function applyScore(walk: Walk, pending: PendingScore): void {
  const { score, ancestors } = pending;
  for (let level = 0; level < ancestors.length; level++) {
    const ancestor = ancestors[level] as Info;
    if (!ancestor.candidate) {
      ancestor.candidate = true;
      ancestor.score += baseScore(ancestor.element.nodeName) + weighNames(ancestor.element);
      walk.candidates.push(ancestor);
    }
    ancestor.score += score / (level === 0 ? 1 : level === 1 ? 2 : level * 3);
  }
}

/** Text of one paragraph: characters, those inside links, commas. */
interface TextRun {
  chars: number;
  linkChars: number;
  commas: number;
}

function addParagraphScore(walk: Walk, stack: Info[], run: TextRun, ownsScore: boolean): void {
  const linkDensity = run.chars > 0 ? run.linkChars / run.chars : 0;
  const score = (1 + run.commas + Math.min(Math.floor(run.chars / 100), 3)) * (1 - linkDensity);
  if (score <= 0) return;
  // A container with text of its own is scored like its paragraph's parent; a paragraph passes its score up.
  const ancestors: Info[] = [];
  for (let i = stack.length - (ownsScore ? 1 : 2); i >= 0 && ancestors.length < 5; i--) ancestors.push(stack[i] as Info);
  const waiting = walk.pending[walk.pending.length - 1];
  if (waiting) waiting.push({ score, ancestors });
  else applyScore(walk, { score, ancestors });
}

/** A chrome-named element's paragraphs count only if it turns out to hold the content (a named container or the h1). */
function settleChrome(walk: Walk, holdsContent: boolean): void {
  const scores = walk.pending.pop() as PendingScore[];
  if (!holdsContent) return;
  const outer = walk.pending[walk.pending.length - 1];
  for (const pending of scores) {
    if (outer) outer.push(pending);
    else applyScore(walk, pending);
  }
}

function visit(walk: Walk, element: Element, stack: Info[], inLink: boolean, inArticle: boolean, inContent: boolean, flags: number): Info {
  const info = createInfo(element);
  walk.infos.set(element, info);
  stack.push(info);
  const tag = element.nodeName;
  if (tag === "H1" || tag === "H2" || tag === "H3") walk.headings.push(element);
  // An anchor without href (<a name=...> round a section) is a target, not a link: its text is prose.
  const link = inLink || (tag === "A" && element.hasAttribute("href"));
  const article = inArticle || tag === "ARTICLE";
  const namedContent = (flags & CONTENT_NAMED) !== 0;
  const content = inContent || marksContent(tag, flags);
  const children = childNodesOf(element);
  // Text set apart by two or more <br> is paragraphs, as Readability reads it (its replaceBrs): each scores.
  let run: TextRun = { chars: 0, linkChars: 0, commas: 0 };
  let runs: TextRun[] | undefined;
  let breaks = 0;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as Node;
    if (child.nodeType === TEXT_NODE) {
      const value = child.nodeValue ?? "";
      const chars = value.trim().length;
      if (chars === 0) continue;
      breaks = 0;
      const commas = countCommas(value);
      info.chars += chars;
      info.inlineChars += chars;
      info.commas += commas;
      info.inlineCommas += commas;
      run.chars += chars;
      run.commas += commas;
      if (link) {
        info.linkChars += chars;
        info.inlineLinkChars += chars;
        run.linkChars += chars;
      }
      continue;
    }
    if (child.nodeType !== ELEMENT_NODE) continue;
    const childElement = child as Element;
    const childTag = childElement.nodeName;
    if (childTag === "BR") {
      if (++breaks === 2 && run.chars > 0) {
        (runs ??= []).push(run);
        run = { chars: 0, linkChars: 0, commas: 0 };
      }
      continue;
    }
    breaks = 0;
    const childFlags = isDroppedTag(childTag, article) ? NEVER_CONTENT : classifyElement(childElement);
    if (childFlags & NEVER_CONTENT) {
      walk.dropped.add(childElement);
      continue;
    }
    const chrome = walk.useNames ? isDroppedByName(childFlags, childTag, content) : isCommentThread(childFlags, childTag);
    if (chrome) walk.pending.push([]);
    const sub = visit(walk, childElement, stack, link, article, content, childFlags);
    if (chrome) {
      // A block named as content inside a comment thread is a comment's text: only the headline keeps a thread.
      const holdsContent = isCommentThread(childFlags, childTag) ? childElement.querySelector("h1") !== null : sub.contentMarks > 0;
      settleChrome(walk, holdsContent);
      if (!holdsContent) {
        walk.dropped.add(childElement);
        continue;
      }
    }
    info.chars += sub.chars;
    info.linkChars += sub.linkChars;
    info.commas += sub.commas;
    info.paragraphs += sub.paragraphs;
    info.images += sub.images;
    info.listItems += sub.listItems;
    info.embeds += sub.embeds;
    info.headingChars += sub.headingChars;
    info.contentMarks += sub.contentMarks;
    info.contentBlocks += sub.contentBlocks;
    if (!BLOCK_TAGS.has(childTag)) {
      info.inlineChars += sub.inlineChars;
      info.inlineLinkChars += sub.inlineLinkChars;
      info.inlineCommas += sub.inlineCommas;
      if (sub.runs === undefined) {
        run.chars += sub.inlineChars;
        run.linkChars += sub.inlineLinkChars;
        run.commas += sub.inlineCommas;
      } else {
        const last = sub.runs.length - 1;
        sub.runs.forEach((part, k) => {
          if (k === 0) {
            run.chars += part.chars;
            run.linkChars += part.linkChars;
            run.commas += part.commas;
          }
          if (k < last) {
            (runs ??= []).push(k === 0 ? run : part);
          } else {
            run = { ...part };
          }
        });
      }
    }
  }
  switch (tag) {
    case "P": info.paragraphs++; break;
    case "IMG": info.images++; break;
    case "LI": info.listItems++; break;
    case "H1": info.contentMarks++; break;
    case "VIDEO": case "AUDIO": case "OBJECT": case "EMBED": case "IFRAME": info.embeds++; break;
  }
  if (namedContent) info.contentMarks++;
  if (marksContent(tag, flags)) info.contentBlocks++;
  if (HEADING_TAGS.has(tag)) info.headingChars += info.chars;
  if (runs !== undefined && !BLOCK_TAGS.has(tag)) info.runs = [...runs, run];
  if (BLOCK_TAGS.has(tag) && info.inlineChars >= MIN_PARAGRAPH_CHARS && tag !== "BODY") {
    if (runs === undefined) {
      addParagraphScore(walk, stack, { chars: info.inlineChars, linkChars: info.inlineLinkChars, commas: info.inlineCommas }, info.inlineChars < info.chars);
    } else {
      if (run.chars > 0) runs.push(run);
      // A container's paragraphs score it; a <p>'s pass their scores up, as its own text would.
      const owns = tag !== "P" || info.inlineChars < info.chars;
      for (const paragraph of runs) if (paragraph.chars >= MIN_PARAGRAPH_CHARS) addParagraphScore(walk, stack, paragraph, owns);
    }
  }
  stack.pop();
  return info;
}

function linkDensity(info: Info): number {
  return info.chars > 0 ? info.linkChars / info.chars : 0;
}

export function finalScore(info: Info): number {
  return info.score * (1 - linkDensity(info));
}

function infoOf(walk: Walk, element: Element | null): Info | undefined {
  return element ? walk.infos.get(element) : undefined;
}

/** Readability's climb: several near-best candidates under one ancestor, or a better-scored parent, win. */
export function chooseTop(walk: Walk, body: Element): Info | undefined {
  const eligible = walk.candidates.filter((c) => !NOT_CANDIDATES.has(c.element.nodeName));
  // A name bonus must not crown a box too small to be the content when larger ones scored.
  const sizable = eligible.filter((c) => c.chars >= MIN_CANDIDATE_CHARS);
  const ranked = (sizable.length > 0 ? sizable : eligible).sort((a, b) => finalScore(b) - finalScore(a));
  let top = ranked[0];
  if (!top) return undefined;
  const topScore = finalScore(top);
  const alternatives = ranked.slice(1, 5).filter((c) => finalScore(c) / topScore >= 0.75).map((c) => c.element);
  if (alternatives.length >= 3) {
    let parent = top.element.parentElement;
    while (parent && parent !== body) {
      const holding = alternatives.filter((a) => parent?.contains(a) === true).length;
      if (holding >= 3) {
        const info = infoOf(walk, parent);
        if (info) top = info;
        break;
      }
      parent = parent.parentElement;
    }
  }
  let lastScore = finalScore(top);
  const threshold = lastScore / 3;
  for (let parent = top.element.parentElement; parent && parent !== body; parent = parent.parentElement) {
    const info = infoOf(walk, parent);
    if (!info?.candidate) continue;
    const score = finalScore(info);
    if (score < threshold) break;
    if (score > lastScore) {
      top = info;
      break;
    }
    lastScore = score;
  }
  for (let parent = top.element.parentElement; parent && parent !== body && parent.children.length === 1; parent = parent.parentElement) {
    const info = infoOf(walk, parent);
    if (info) top = info;
  }
  return top;
}

function textOfParagraph(element: Element): string {
  return (element.textContent ?? "").trim();
}

/** The top candidate's siblings that belong with it (score, or a clean paragraph). */
function collectSiblings(walk: Walk, top: Info): Element[] {
  const parent = top.element.parentElement;
  if (!parent) return [top.element];
  const topScore = finalScore(top);
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = top.element.getAttribute("class") ?? "";
  const chosen: Element[] = [];
  for (const sibling of Array.from(parent.children) as Element[]) {
    if (sibling === top.element) {
      chosen.push(sibling);
      continue;
    }
    const info = walk.infos.get(sibling);
    if (!info || walk.dropped.has(sibling)) continue;
    let bonus = 0;
    const sameClass = topClass !== "" && sibling.getAttribute("class") === topClass;
    if (sameClass) bonus += topScore * 0.2;
    if (info.candidate && finalScore(info) + bonus >= threshold) {
      chosen.push(sibling);
      continue;
    }
    // A part of the same class whose paragraphs sit too deep to score it (scores reach five levels up).
    if (sameClass && ownProse(info) >= MIN_PART_PROSE && linkDensity(info) < 0.25) {
      chosen.push(sibling);
      continue;
    }
    if (sibling.nodeName === "P") {
      const density = linkDensity(info);
      if (info.chars > 80 && density < 0.25) chosen.push(sibling);
      else if (info.chars > 0 && info.chars <= 80 && density === 0 && /\.( |$)/.test(textOfParagraph(sibling))) chosen.push(sibling);
    }
  }
  return chosen;
}

function isInsideFigure(element: Element, root: Element): boolean {
  for (let node = element.parentElement; node && node !== root; node = node.parentElement) if (node.nodeName === "FIGURE") return true;
  return false;
}

const INTRODUCING_TAGS = new Set(["P", "H1", "H2", "H3", "H4", "H5", "H6", "B", "STRONG", "SPAN", "EM", "I", "FONT", "DIV"]);

/**
 * A list the text introduces: the text just before it (past line breaks) ends with a colon ("The winners
 * include:"), or it continues a run of lists that such text introduces.
 */
function isIntroduced(list: Element): boolean {
  let node = list.previousSibling as Node | null;
  for (let steps = 0; node && steps < 40; steps++, node = node.previousSibling) {
    if (node.nodeType === TEXT_NODE) {
      const text = node.nodeValue ?? "";
      if (text.trim() === "") continue;
      return /:\s*$/.test(text);
    }
    if (node.nodeType !== ELEMENT_NODE) continue;
    const tag = node.nodeName;
    if (tag === "BR" || tag === "UL" || tag === "OL") continue;
    return INTRODUCING_TAGS.has(tag) && /:\s*$/.test(node.textContent ?? "");
  }
  return false;
}

/**
 * Link density up to which a list of lines with text of their own is text (wide set, pooled: 0.6 0.9447,
 * 0.75 and 0.9 0.9448; at 0.6 the weekly-notes lists of Readability's pages still go).
 */
const MAX_MIXED_LIST_DENSITY = 0.75;
/** Characters outside links a list line needs to say something of its own (5 and 10 alike on the wide set; at 20 both gains below are lost). */
const MIN_ITEM_OWN = 10;
/**
 * Whether every item of the list holds text of its own beside its links (a line that says something about
 * what it links: "🌟 Ann fixed <a>a crash</a>", "<a>A post</a> by Ann"), and no heading just before it names
 * it chrome ("Related Posts" over linked titles and their dates).
 */
function itemsHaveOwnText(walk: Walk, list: Element): boolean {
  const heading = list.previousElementSibling;
  if (heading && HEADING_TAGS.has(heading.nodeName) && headingNamesChrome(heading.textContent ?? "")) return false;
  let items = 0;
  for (const item of childElementsOf(list)) {
    if (item.nodeName !== "LI") continue;
    const info = walk.infos.get(item);
    if (!info) continue;
    items++;
    if (ownProse(info) < MIN_ITEM_OWN) return false;
  }
  return items > 1;
}

/** Readability's conditional cleaning, from the counts of the walk. */
function looksLikeChrome(walk: Walk, element: Element, info: Info, root: Element): boolean {
  const tag = element.nodeName;
  const weight = weighNames(element);
  const isList = tag === "UL" || tag === "OL" || tag === "DL";
  // Introduced by the text, a list is the text's, whatever its links or its own small score.
  if (isList && weight >= 0 && isIntroduced(element)) return false;
  // A list's base score (-3) ranks candidates; it is no evidence against a short list in the text.
  const score = info.candidate ? info.score - Math.min(0, baseScore(tag)) : 0;
  if (weight + score < 0) return true;
  if (info.commas >= 10) return false;
  const density = linkDensity(info);
  const paragraphs = info.paragraphs;
  const images = info.images;
  const headingDensity = info.chars > 0 ? info.headingChars / info.chars : 0;
  if (images > 1 && paragraphs / images < 0.5 && !isInsideFigure(element, root)) return true;
  if (!isList && info.listItems - 100 > paragraphs) return true;
  if (!isList && headingDensity < 0.9 && info.chars < 25 && (images === 0 || images > 2) && density > 0) return true;
  // A list of sentences that link their subjects is text, not a link farm.
  const proseList = isList && info.listItems > 0 && ((info.chars / info.listItems >= 60 && density < 0.5) || (density < MAX_MIXED_LIST_DENSITY && itemsHaveOwnText(walk, element)));
  if (weight < 25 && density > 0.2 && !proseList) return true;
  if (weight >= 25 && density > 0.5) return true;
  if ((info.embeds === 1 && info.chars < 75) || info.embeds > 1) return true;
  return false;
}

/** Text that is not link text: what a cleaning rule must not take most of. */
function ownProse(info: Info): number {
  return info.chars - info.linkChars;
}

/**
 * Whether a block is beyond the counting rules of cleaning: it holds more than `guard` prose (half the
 * content's), or its class or id names it as content and it holds over half of that (a quarter of the
 * content's): "post" and "entry-content" blocks whose linked headlines pushed them over a link-density
 * limit lost the article.
 */
function isGuarded(element: Element, info: Info, guard: number): boolean {
  const prose = ownProse(info);
  return prose > guard || (prose > guard / 2 && (classifyElement(element) & CONTENT_NAMED) !== 0);
}

/**
 * A div holding only inline content, mostly not link text, is a paragraph written as a div: Readability
 * turns such divs into paragraphs before its conditional cleaning, which never judges a paragraph. Judged
 * as a block, a sentence whose link is a quarter of it went for its link density. A line that is mostly
 * links stays a block to judge (wide set: no link limit 0.9441, under 1 0.9443, under 0.5 0.9442; dev set
 * 0.9379 / 0.9384 / 0.9380: the half keeps most to precision on unseen pages).
 */
function isParagraphDiv(element: Element, info: Info): boolean {
  return element.nodeName === "DIV" && info.chars > 0 && info.inlineChars === info.chars && linkDensity(info) < 0.5;
}

/**
 * Whether a list is the bulk (half the text or more) of the nearest block named as content around it
 * (`namedChars`: that block's characters): a links roundup post whose every line is a linked headline is
 * that post, not a link farm inside it.
 */
function isBulkOfNamed(element: Element, info: Info, namedChars: number): boolean {
  return (element.nodeName === "UL" || element.nodeName === "OL") && namedChars > 0 && info.chars >= namedChars / 2 && weighNames(element) >= 0;
}

/**
 * Removes the chrome inside `element`. A rule never removes a block holding most of the content's
 * prose (`guard`: half the root's): Readability's rules judge a block by its counts alone, so a
 * gallery post (more images than paragraphs) or a list-heavy entry lost the whole article and the
 * empty result sent the page to the whole-body fallback. `namedChars`: see isBulkOfNamed.
 */
function clean(walk: Walk, element: Element, root: Element, changes: DomChanges, guard: number, namedChars = 0): void {
  // Live: a child removed below leaves the array, so the walk goes from the end.
  const children = childElementsOf(element);
  const elementInfo = walk.infos.get(element);
  const named = elementInfo && (classifyElement(element) & CONTENT_NAMED) !== 0 ? elementInfo.chars : namedChars;
  for (let i = children.length - 1; i >= 0; i--) {
    const child = children[i] as Element;
    if (walk.dropped.has(child)) {
      changes.remove(child);
      continue;
    }
    const info = walk.infos.get(child);
    if (!info) continue;
    if (child.nodeName === "FORM") {
      changes.remove(child);
      continue;
    }
    if (CLEANED_TAGS.has(child.nodeName) && !isParagraphDiv(child, info) && !isBulkOfNamed(child, info, named) && !isGuarded(child, info, guard) && looksLikeChrome(walk, child, info, root)) {
      changes.remove(child);
      continue;
    }
    if (HEADING_TAGS.has(child.nodeName) && weighNames(child) < 0) {
      changes.remove(child);
      continue;
    }
    clean(walk, child, root, changes, guard, named);
  }
}

export function walkDocument(body: Element, options: DetectOptions): Walk {
  const walk: Walk = { infos: new Map(), dropped: new Set(), candidates: [], useNames: options.useNames, pending: [], headings: [] };
  visit(walk, body, [], false, false, false, 0);
  return walk;
}

/** The share of the page's prose (text outside links) the content is expected to hold. */
const MOST_OF_PAGE = 0.5;
/** Link density above which a block that holds most of the page's prose is rather a page of links. */
const MAX_WIDENED_LINK_DENSITY = 0.3;

/** Whether the block is, or holds, an element named as content with most of its prose (a name that says where the content ends). */
function holdsNamedContent(walk: Walk, top: Info): boolean {
  if (marksContent(top.element.nodeName, classifyElement(top.element))) return true;
  const half = ownProse(top) / 2;
  for (const element of Array.from(top.element.querySelectorAll("[class],[id]")) as Element[]) {
    const info = walk.infos.get(element);
    if (info && ownProse(info) >= half && marksContent(element.nodeName, classifyElement(element))) return true;
  }
  return false;
}

/**
 * The chosen block widened to its nearest ancestor (the body at most) holding most of the page's prose, when it holds
 * little of it itself: older pages spread their text over sibling cells, lists and tables, none of
 * which is much of the page, and the best-scored one alone lost the rest. Not when the block, a block
 * inside it or an ancestor is named as content or is an article: that names where the content ends. Not onto an
 * ancestor dense with links.
 */
function widenToPageProse(walk: Walk, top: Info, body: Element): Info {
  const page = walk.infos.get(body);
  if (!page) return top;
  const mostOfPage = MOST_OF_PAGE * ownProse(page);
  if (ownProse(top) >= mostOfPage) return top;
  if (top.contentBlocks > 0 && holdsNamedContent(walk, top)) return top;
  for (let node = top.element.parentElement; node && node !== body; node = node.parentElement) {
    if (marksContent(node.nodeName, classifyElement(node))) return top;
  }
  // Up to the body itself: a page of loose sibling blocks under <body> has no other ancestor holding them.
  for (let parent = top.element.parentElement; parent; parent = parent === body ? null : parent.parentElement) {
    const info = walk.infos.get(parent);
    if (info && ownProse(info) >= mostOfPage) return linkDensity(info) <= MAX_WIDENED_LINK_DENSITY ? info : top;
  }
  return top;
}

/** How far above an unnamed chosen block a block named as content is taken instead (1: 0.9443, 2: 0.9445 on the wide set). */
const NAMED_PARENT_LEVELS = 2;

/**
 * An unnamed block chosen inside a block named as content (its parent or grandparent) widens to that
 * block, unless it is dense with links: the name says where the content ends, and the text beside the
 * chosen block (an intro above a video, paragraphs in a sibling div) is the article's (dragnet-R550: the
 * post-body's first paragraphs, outside the chosen div, were lost).
 */
function widenToNamedParent(walk: Walk, top: Info, body: Element): Info {
  if (marksContent(top.element.nodeName, classifyElement(top.element))) return top;
  let parent = top.element.parentElement;
  for (let level = 1; parent && parent !== body && level <= NAMED_PARENT_LEVELS; level++, parent = parent.parentElement) {
    if (!marksContent(parent.nodeName, classifyElement(parent))) continue;
    const info = walk.infos.get(parent);
    return info && linkDensity(info) <= MAX_WIDENED_LINK_DENSITY ? info : top;
  }
  return top;
}

/** Least share of the chosen block's score the block holding the page's title needs to be taken instead. */
const TITLED_SHARE = 1 / 3;

/**
 * The block holding the page's title heading (its nearest ancestor that scored), instead of the chosen block,
 * when the two are apart, the titled block has a third of the score, and the evidence is on its side: it holds
 * at least as much prose (dragnet-268: a "best viewed in an up-to-date browser" notice over a short news
 * story), or it is named as content while the chosen block sits inside a block named as chrome (a blog post
 * of short linked lines beside the sidebar's long "About me", which the sidebar kept inside the "content"
 * wrapper). Not when the chosen block holds the heading or sits inside the titled block: a headline above
 * the article body is the common case.
 */
function preferTitled(walk: Walk, top: Info, body: Element, title: string): Info {
  const heading = titleHeadingAmong(walk.headings, title);
  if (!heading || top.element.contains(heading)) return top;
  const topScore = finalScore(top);
  for (let node = heading.parentElement; node && node !== body; node = node.parentElement) {
    if (node.contains(top.element)) return top;
    const info = walk.infos.get(node);
    if (!info?.candidate || info.chars < MIN_CANDIDATE_CHARS || NOT_CANDIDATES.has(node.nodeName)) continue;
    const evidence = ownProse(info) >= ownProse(top) || (marksContent(node.nodeName, classifyElement(node)) && insideChrome(top.element, body));
    return finalScore(info) >= topScore * TITLED_SHARE && evidence ? info : top;
  }
  return top;
}

/** Whether an element lies inside a block whose class or id names it chrome (kept by the try, as a sidebar inside the content wrapper is). */
function insideChrome(element: Element, body: Element): boolean {
  for (let node = element.parentElement; node && node !== body; node = node.parentElement) {
    if ((classifyElement(node) & CHROME_NAMED) !== 0) return true;
  }
  return false;
}

/**
 * Where a comment thread that names itself only by its heading ("Comments", "25 Comments", "Leave a Reply") or by
 * the empty anchor that links jump to (`<a name="comments"></a>`) starts, its comments loose paragraphs or lines
 * after it (Movable Type and TypePad blogs, older news templates): the marker and what follows it in its parent
 * are removed, when the content keeps some prose of its own before it.
 */
function removeCommentSection(walk: Walk, root: Element, changes: DomChanges): void {
  const candidates = Array.from(root.querySelectorAll("h2,h3,h4,a[name]:not([href]),a[id]:not([href])")) as Element[];
  // A page of several posts (a blog's front page) repeats the anchor before each post's comments: none ends the content.
  const anchors = candidates.filter((candidate) => candidate.nodeName === "A" && namesCommentAnchor(candidate));
  const anchorNames = anchors.map((anchor) => `${anchor.getAttribute("name") ?? ""} ${anchor.getAttribute("id") ?? ""}`.toLowerCase());
  const repeated = new Set(anchorNames).size < anchorNames.length;
  for (const candidate of candidates) {
    const marker = candidate.nodeName !== "A" ? commentHeading(candidate) : !repeated && anchors[0] === candidate ? anchorBlock(candidate, root) : undefined;
    if (!marker) continue;
    const parent = marker.parentElement;
    if (!parent) return;
    const section: Node[] = [];
    let removed = 0;
    for (let node: Node | null = marker as unknown as Node; node; node = node.nextSibling) {
      section.push(node);
      const info = node.nodeType === ELEMENT_NODE ? walk.infos.get(node as unknown as Element) : undefined;
      removed += info ? ownProse(info) : (node.textContent ?? "").trim().length;
    }
    const total = ownProse(walk.infos.get(root) ?? ({ chars: (root.textContent ?? "").length, linkChars: 0 } as Info));
    if (total - removed < MIN_PART_PROSE) return;
    for (const node of section) changes.remove(node as unknown as Element);
    return;
  }
}

/** The heading, when its text or (emptied by content-prune) its id or class names a comment thread. */
function commentHeading(heading: Element): Element | undefined {
  return isCommentThreadTitle(heading.textContent ?? "") || isCommentThread(classifyElement(heading), heading.nodeName) ? heading : undefined;
}

/** Whether an empty anchor's name or id names a comment thread (`<a name="comments"></a>`, `<a id="commentSection">`). */
function namesCommentAnchor(anchor: Element): boolean {
  const name = `${anchor.getAttribute("name") ?? ""} ${anchor.getAttribute("id") ?? ""}`;
  return (anchor.textContent ?? "").trim() === "" && namesCommentThread(name.replace(/([a-z])([A-Z])/g, "$1 $2"));
}

/** The block an anchor starts: the anchor, or the outermost ancestor below `root` that holds nothing else. */
function anchorBlock(anchor: Element, root: Element): Element {
  let block = anchor;
  while (block.parentElement && block.parentElement !== root && (block.parentElement.textContent ?? "").trim() === "") block = block.parentElement;
  return block;
}

/** Least part of the article worth joining: its text outside links. */
const MIN_PART_PROSE = 100;
/**
 * How far above the chosen part the parts may meet: a split article's parts sit in sibling wrappers; blocks
 * of the same name further away are teasers of other articles (dev set: 2 levels 0.9361, 3 levels 0.9361,
 * any distance 0.9343: a sidebar's "entry-content" teasers joined a post).
 */
const MAX_PART_LEVELS = 3;

/**
 * An article split across containers of the same class ("story-body story-body-1" and "story-body
 * story-body-2" in sibling wrappers, related links between): the chosen part, when its class names it as
 * content, widens to the nearest ancestor (below body, at most MAX_PART_LEVELS up) holding every element
 * of that class (numbers aside) with prose of its own. Conditional cleaning then removes what lies between.
 */
function joinSameNamedParts(walk: Walk, top: Info, body: Element): Info {
  const name = contentName(top.element);
  if (name === "") return top;
  const outside: Element[] = [];
  for (const info of walk.infos.values()) {
    if (info === top || ownProse(info) < MIN_PART_PROSE || contentName(info.element) !== name) continue;
    if (!top.element.contains(info.element) && !info.element.contains(top.element)) outside.push(info.element);
  }
  if (outside.length === 0) return top;
  let ancestor = top.element.parentElement;
  let levels = 1;
  while (ancestor && ancestor !== body && !outside.every((part) => ancestor?.contains(part))) {
    ancestor = ancestor.parentElement;
    levels++;
  }
  if (!ancestor || ancestor === body || levels > MAX_PART_LEVELS) return top;
  return walk.infos.get(ancestor) ?? top;
}

/**
 * An element's class words, numbers dropped ("story-body story-body-2" → "story-body"), sorted; empty unless
 * one of them names it as content.
 */
function contentName(element: Element): string {
  if (contentClassTokens(element).length === 0) return "";
  const tokens = (element.getAttribute("class") ?? "").split(/\s+/).filter((token) => token !== "");
  return [...new Set(tokens.map((token) => token.replace(/[-_]?\d+$/, "").toLowerCase()))].sort().join(" ");
}

/**
 * The main content of `document` as an element of it (the container itself, or a new div holding
 * it and the siblings that join it), cleaned of chrome; undefined when nothing scored. Mutates
 * the document, each change recorded in `changes` (so it can be undone).
 */
export function detectMainContent(document: Document, options: DetectOptions, changes: DomChanges): Element | undefined {
  const body = document.body as Element | null;
  if (!body) return undefined;
  const walk = walkDocument(body, options);
  const scored = chooseTop(walk, body);
  if (!scored) return undefined;
  const chosen = preferTitled(walk, scored, body, options.title ?? "");
  const widened = widenToNamedParent(walk, widenToPageProse(walk, chosen, body), body);
  const top = widened === chosen ? joinSameNamedParts(walk, chosen, body) : widened;
  const members = collectSiblings(walk, top);
  let root: Element;
  if (members.length === 1) {
    root = top.element;
  } else {
    root = document.createElement("div") as unknown as Element;
    const parent = top.element.parentElement as Element;
    changes.insert(parent, root, members[0] as unknown as Node);
    for (const member of members) changes.append(root, member);
  }
  const prose = members.reduce((sum, member) => sum + ownProse(walk.infos.get(member) as Info), 0);
  removeCommentSection(walk, root, changes);
  clean(walk, root, root, changes, prose / 2);
  return root;
}
