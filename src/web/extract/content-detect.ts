/**
 * @module web/extract/content-detect — finds a page's main content in one walk over the DOM, in the
 * manner of Readability (paragraph scores flow to their ancestors; the best-scored container,
 * weighed by its link density, wins; siblings that score well join it) but without cloning or
 * re-walking the document: every element's text, link-text, comma, paragraph, image and list
 * counts are gathered in the same pass, and the winner is then cleaned of chrome (comment
 * threads, sharing, related lists, link-dense blocks) from those counts.
 */
import type { DomChanges } from "./content-changes.ts";
import { titleHeadingAmong } from "./content-title.ts";
import { contains, createElement, elementChildrenOf, isTag, isText, parentElementOf, previousElementOf, selectAllIn, selectFirstIn, textOf, type ChildNode, type Element } from "./dom.ts";
import { CHROME_NAMED, CHROME_TAGS, CONTENT_NAMED, NEVER_CONTENT, NEVER_CONTENT_TAGS, classifyElement, contentClassTokens, headingNamesChrome, isCommentThread, isCommentThreadTitle, isDroppedByName, isContentBlock, namesCommentThread, marksContent, weighNames } from "./content-signals.ts";

/** Elements that start a new block of text (a paragraph's text never crosses one). */
const BLOCK_TAGS = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "div", "dl", "dt", "fieldset",
  "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "main", "ol", "p", "pre",
  "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "br",
]);
const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Never chosen as the content container (they hold it or are too small to). */
const NOT_CANDIDATES = new Set(["html", "body", "a", "span", "b", "i", "em", "strong", "font", "tbody", "thead", "tr"]);
/**
 * Inline elements that can still be the container when they hold paragraphs: a <font> or <span> round an
 * article inside a table cell of other things, or never closed round it (its parent, the body, is no candidate).
 */
const INLINE_CONTAINERS = new Set(["span", "b", "i", "em", "strong", "font"]);

function isInlineContainer(info: Info): boolean {
  return INLINE_CONTAINERS.has(info.element.name) && info.paragraphs >= 2;
}
/** Containers the conditional cleaning judges (Readability's list plus sections). */
const CLEANED_TAGS = new Set(["div", "section", "table", "ul", "ol", "dl", "aside", "header", "footer", "figure", "center"]);
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
    case "div": case "article": case "main": case "section":
      return 5;
    case "pre": case "td": case "blockquote":
      return 3;
    case "address": case "ol": case "ul": case "dl": case "dd": case "dt": case "li": case "form":
      return -3;
    case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": case "th":
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
      ancestor.score += baseScore(ancestor.element.name) + weighNames(ancestor.element);
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
  const tag = element.name;
  if (tag === "h1" || tag === "h2" || tag === "h3") walk.headings.push(element);
  // An anchor without href (<a name=...> round a section) is a target, not a link: its text is prose.
  const link = inLink || (tag === "a" && element.attribs.href !== undefined);
  const article = inArticle || tag === "article";
  const namedContent = (flags & CONTENT_NAMED) !== 0;
  const content = inContent || marksContent(tag, flags);
  const children = element.children;
  // Text set apart by two or more <br> is paragraphs, as Readability reads it (its replaceBrs): each scores.
  let run: TextRun = { chars: 0, linkChars: 0, commas: 0 };
  let runs: TextRun[] | undefined;
  let breaks = 0;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as ChildNode;
    if (isText(child)) {
      const value = child.data;
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
    if (!isTag(child)) continue;
    const childElement = child;
    const childTag = childElement.name;
    if (childTag === "br") {
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
      const holdsContent = isCommentThread(childFlags, childTag) ? selectFirstIn(childElement, "h1") !== null : sub.contentMarks > 0;
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
    case "p": if (info.chars > 0 || info.images > 0) info.paragraphs++; break;
    case "img": info.images++; break;
    case "li": info.listItems++; break;
    case "h1": info.contentMarks++; break;
    case "video": case "audio": case "object": case "embed": case "iframe": info.embeds++; break;
  }
  if (namedContent) info.contentMarks++;
  if (marksContent(tag, flags)) info.contentBlocks++;
  if (HEADING_TAGS.has(tag)) info.headingChars += info.chars;
  if (runs !== undefined && !BLOCK_TAGS.has(tag)) info.runs = [...runs, run];
  if (BLOCK_TAGS.has(tag) && info.inlineChars >= MIN_PARAGRAPH_CHARS && tag !== "body") {
    if (runs === undefined) {
      addParagraphScore(walk, stack, { chars: info.inlineChars, linkChars: info.inlineLinkChars, commas: info.inlineCommas }, info.inlineChars < info.chars);
    } else {
      if (run.chars > 0) runs.push(run);
      // A container's paragraphs score it; a <p>'s pass their scores up, as its own text would.
      const owns = tag !== "p" || info.inlineChars < info.chars;
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
  const blocks = walk.candidates.filter((c) => !NOT_CANDIDATES.has(c.element.name));
  const eligible = blocks.length > 0 ? blocks : walk.candidates.filter(isInlineContainer);
  // A name bonus must not crown a box too small to be the content when larger ones scored.
  const sizable = eligible.filter((c) => c.chars >= MIN_CANDIDATE_CHARS);
  const ranked = (sizable.length > 0 ? sizable : eligible).sort((a, b) => finalScore(b) - finalScore(a));
  let top = ranked[0];
  if (!top) return undefined;
  const topScore = finalScore(top);
  const alternatives = ranked.slice(1, 5).filter((c) => finalScore(c) / topScore >= 0.75).map((c) => c.element);
  if (alternatives.length >= 3) {
    let parent = parentElementOf(top.element);
    while (parent && parent !== body) {
      const ancestor = parent;
      const holding = alternatives.filter((a) => contains(ancestor, a)).length;
      if (holding >= 3) {
        const info = infoOf(walk, parent);
        if (info) top = info;
        break;
      }
      parent = parentElementOf(parent);
    }
  }
  let lastScore = finalScore(top);
  const threshold = lastScore / 3;
  for (let parent = parentElementOf(top.element); parent && parent !== body; parent = parentElementOf(parent)) {
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
  for (let parent = parentElementOf(top.element); parent && parent !== body && elementChildCount(parent) === 1; parent = parentElementOf(parent)) {
    const info = infoOf(walk, parent);
    if (info) top = info;
  }
  return top;
}

function textOfParagraph(element: Element): string {
  return textOf(element).trim();
}

function elementChildCount(element: Element): number {
  let count = 0;
  for (const child of element.children) if (isTag(child)) count++;
  return count;
}

/** Share of the chosen block's prose an inline container inside it must hold to be taken instead. */
const INLINE_SHARE = 0.5;

/**
 * The best-scored inline container inside the chosen block (a <font class="bodytext"> in a layout cell that also
 * holds a date line, a photo credit and links), instead of the block, when it outscores the block and holds
 * most of its prose. Blocks alone are ranked and climbed first, so an article split across cells still climbs
 * to the cells' common ancestor, which no single inline part then holds most of.
 */
function narrowToInlineContainer(walk: Walk, top: Info): Info {
  let best: Info | undefined;
  for (const info of walk.candidates) {
    if (!isInlineContainer(info) || finalScore(info) <= finalScore(top) || !contains(top.element, info.element)) continue;
    if (!best || finalScore(info) > finalScore(best)) best = info;
  }
  return best && ownProse(best) >= INLINE_SHARE * ownProse(top) ? best : top;
}

/**
 * The chosen block's content, when a block inside it names itself so (class "content", "entry-content", itemprop
 * articleBody, <article>) and holds most of the chosen block's prose: the outermost such block (it comes first in
 * document order). The name says where the content is, and the chosen block's rest is the page's (a
 * related-content box, an advertisement's label, a jobs board under the article in the same column).
 */
function namedContentWithin(walk: Walk, top: Info): Info | undefined {
  const half = ownProse(top) / 2;
  for (const element of selectAllIn(top.element, "[class],[id],[itemprop],article")) {
    const info = walk.infos.get(element);
    if (info && ownProse(info) >= half && isContentBlock(element)) return info;
  }
  return undefined;
}

/** The block named as content inside the chosen block (namedContentWithin) instead of it, unless it is named so itself. */
function narrowToNamedContent(walk: Walk, top: Info): Info {
  return isContentBlock(top.element) ? top : (namedContentWithin(walk, top) ?? top);
}

/** The top candidate's siblings that belong with it (score, or a clean paragraph). */
function collectSiblings(walk: Walk, top: Info): Element[] {
  const parent = parentElementOf(top.element);
  if (!parent) return [top.element];
  const topScore = finalScore(top);
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = top.element.attribs.class ?? "";
  const chosen: Element[] = [];
  for (const sibling of elementChildrenOf(parent)) {
    if (sibling === top.element) {
      chosen.push(sibling);
      continue;
    }
    const info = walk.infos.get(sibling);
    if (!info || walk.dropped.has(sibling)) continue;
    let bonus = 0;
    const sameClass = topClass !== "" && sibling.attribs.class === topClass;
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
    if (sibling.name === "p") {
      const density = linkDensity(info);
      if (info.chars > 80 && density < 0.25) chosen.push(sibling);
      else if (info.chars > 0 && info.chars <= 80 && density === 0 && /\.( |$)/.test(textOfParagraph(sibling))) chosen.push(sibling);
    }
  }
  return chosen;
}

function isInsideFigure(element: Element, root: Element): boolean {
  for (let node = parentElementOf(element); node && node !== root; node = parentElementOf(node)) if (node.name === "figure") return true;
  return false;
}

const INTRODUCING_TAGS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "b", "strong", "span", "em", "i", "font", "div"]);

/**
 * A list the text introduces: the text just before it (past line breaks) ends with a colon ("The winners
 * include:"), or it continues a run of lists that such text introduces.
 */
function isIntroduced(list: Element): boolean {
  let node = list.prev;
  for (let steps = 0; node && steps < 40; steps++, node = node.prev) {
    if (isText(node)) {
      const text = node.data;
      if (text.trim() === "") continue;
      return /:\s*$/.test(text);
    }
    if (!isTag(node)) continue;
    const tag = node.name;
    if (tag === "br" || tag === "ul" || tag === "ol") continue;
    return INTRODUCING_TAGS.has(tag) && /:\s*$/.test(textOf(node));
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
  const heading = previousElementOf(list);
  if (heading && HEADING_TAGS.has(heading.name) && headingNamesChrome(textOf(heading))) return false;
  let items = 0;
  for (const item of elementChildrenOf(list)) {
    if (item.name !== "li") continue;
    const info = walk.infos.get(item);
    if (!info) continue;
    items++;
    if (ownProse(info) < MIN_ITEM_OWN) return false;
  }
  return items > 1;
}

/** Readability's conditional cleaning, from the counts of the walk. */
function looksLikeChrome(walk: Walk, element: Element, info: Info, root: Element): boolean {
  const tag = element.name;
  const weight = weighNames(element);
  const isList = tag === "ul" || tag === "ol" || tag === "dl";
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
  return element.name === "div" && info.chars > 0 && info.inlineChars === info.chars && linkDensity(info) < 0.5;
}

/**
 * Whether a list is the bulk (half the text or more) of the nearest block named as content around it
 * (`namedChars`: that block's characters): a links roundup post whose every line is a linked headline is
 * that post, not a link farm inside it.
 */
function isBulkOfNamed(element: Element, info: Info, namedChars: number): boolean {
  return (element.name === "ul" || element.name === "ol") && namedChars > 0 && info.chars >= namedChars / 2 && weighNames(element) >= 0;
}

/**
 * Removes the chrome inside `element`. A rule never removes a block holding most of the content's
 * prose (`guard`: half the root's): Readability's rules judge a block by its counts alone, so a
 * gallery post (more images than paragraphs) or a list-heavy entry lost the whole article and the
 * empty result sent the page to the whole-body fallback. `namedChars`: see isBulkOfNamed.
 */
function clean(walk: Walk, element: Element, root: Element, changes: DomChanges, guard: number, namedChars = 0): void {
  // A copy: the loop removes children as it goes.
  const children = elementChildrenOf(element);
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
    if (child.name === "form") {
      changes.remove(child);
      continue;
    }
    if (CLEANED_TAGS.has(child.name) && !isParagraphDiv(child, info) && !isBulkOfNamed(child, info, named) && !isGuarded(child, info, guard) && looksLikeChrome(walk, child, info, root)) {
      changes.remove(child);
      continue;
    }
    if (HEADING_TAGS.has(child.name) && weighNames(child) < 0) {
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
  return isContentBlock(top.element) || namedContentWithin(walk, top) !== undefined;
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
  for (let node = parentElementOf(top.element); node && node !== body; node = parentElementOf(node)) {
    if (isContentBlock(node)) return top;
  }
  // Up to the body itself: a page of loose sibling blocks under <body> has no other ancestor holding them.
  for (let parent = parentElementOf(top.element); parent; parent = parent === body ? null : parentElementOf(parent)) {
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
  if (isContentBlock(top.element)) return top;
  let parent = parentElementOf(top.element);
  for (let level = 1; parent && parent !== body && level <= NAMED_PARENT_LEVELS; level++, parent = parentElementOf(parent)) {
    if (!isContentBlock(parent)) continue;
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
  if (!heading || contains(top.element, heading)) return top;
  const topScore = finalScore(top);
  for (let node = parentElementOf(heading); node && node !== body; node = parentElementOf(node)) {
    if (contains(node, top.element)) return top;
    const info = walk.infos.get(node);
    if (!info?.candidate || info.chars < MIN_CANDIDATE_CHARS || NOT_CANDIDATES.has(node.name)) continue;
    const evidence = ownProse(info) >= ownProse(top) || (isContentBlock(node) && insideChrome(top.element, body));
    return finalScore(info) >= topScore * TITLED_SHARE && evidence ? info : top;
  }
  return top;
}

/** Whether an element lies inside a block whose class or id names it chrome (kept by the try, as a sidebar inside the content wrapper is). */
function insideChrome(element: Element, body: Element): boolean {
  for (let node = parentElementOf(element); node && node !== body; node = parentElementOf(node)) {
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
  const candidates = selectAllIn(root, "h2,h3,h4,a[name]:not([href]),a[id]:not([href])");
  // A page of several posts (a blog's front page) repeats the anchor before each post's comments: none ends the content.
  const anchors = candidates.filter((candidate) => candidate.name === "a" && namesCommentAnchor(candidate));
  const anchorNames = anchors.map((anchor) => `${anchor.attribs.name ?? ""} ${anchor.attribs.id ?? ""}`.toLowerCase());
  const repeated = new Set(anchorNames).size < anchorNames.length;
  for (const candidate of candidates) {
    const marker = candidate.name !== "a" ? commentHeading(candidate) : !repeated && anchors[0] === candidate ? anchorBlock(candidate, root) : undefined;
    if (!marker) continue;
    const parent = parentElementOf(marker);
    if (!parent) return;
    const section: ChildNode[] = [];
    let removed = 0;
    for (let node: ChildNode | null = marker; node; node = node.next) {
      section.push(node);
      const info = isTag(node) ? walk.infos.get(node) : undefined;
      removed += info ? ownProse(info) : textOf(node).trim().length;
    }
    const total = ownProse(walk.infos.get(root) ?? ({ chars: textOf(root).length, linkChars: 0 } as Info));
    if (total - removed < MIN_PART_PROSE) return;
    for (const node of section) changes.remove(node);
    return;
  }
}

/** Least links in a trailing run of link lines taken for a list of other stories. */
const MIN_TRAILING_LINKS = 3;

/**
 * Lines of links loose at the end of the content (`<span><a>Other story</a></span><br>` after the article's
 * last paragraph, in the same table cell): more headlines, which conditional cleaning never sees as they sit
 * in no block of their own. Removed when there are at least three, every line after the last prose is a link
 * line, and the content keeps some prose of its own before them. Lists are left to conditional cleaning,
 * which already judged them (a list the text introduces stays).
 */
function removeTrailingLinkLines(walk: Walk, root: Element, changes: DomChanges): void {
  const tail: ChildNode[] = [];
  const counted = { links: 0 };
  if (collectLinkTail(walk, root, tail, counted) || counted.links < MIN_TRAILING_LINKS) return;
  const info = walk.infos.get(root);
  if (!info || ownProse(info) < MIN_PART_PROSE) return;
  for (const node of tail) changes.remove(node);
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

/** The heading, when its text or its id or class names a comment thread. */
function commentHeading(heading: Element): Element | undefined {
  return isCommentThreadTitle(textOf(heading)) || isCommentThread(classifyElement(heading), heading.name) ? heading : undefined;
}

/** Whether an empty anchor's name or id names a comment thread (`<a name="comments"></a>`, `<a id="commentSection">`). */
function namesCommentAnchor(anchor: Element): boolean {
  const name = `${anchor.attribs.name ?? ""} ${anchor.attribs.id ?? ""}`;
  return textOf(anchor).trim() === "" && namesCommentThread(name.replace(/([a-z])([A-Z])/g, "$1 $2"));
}

/** The block an anchor starts: the anchor, or the outermost ancestor below `root` that holds nothing else. */
function anchorBlock(anchor: Element, root: Element): Element {
  let block = anchor;
  for (let parent = parentElementOf(block); parent && parent !== root && textOf(parent).trim() === ""; parent = parentElementOf(parent)) block = parent;
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
    if (!contains(top.element, info.element) && !contains(info.element, top.element)) outside.push(info.element);
  }
  if (outside.length === 0) return top;
  let ancestor = parentElementOf(top.element);
  let levels = 1;
  while (ancestor && ancestor !== body && !outside.every((part) => contains(ancestor as Element, part))) {
    ancestor = parentElementOf(ancestor);
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
  const tokens = (element.attribs.class ?? "").split(/\s+/).filter((token) => token !== "");
  return [...new Set(tokens.map((token) => token.replace(/[-_]?\d+$/, "").toLowerCase()))].sort().join(" ");
}

/**
 * The main content of the page whose body is `body`, as an element of it (the container itself, or a new
 * div holding it and the siblings that join it), cleaned of chrome; undefined when nothing scored. Mutates
 * the tree, each change recorded in `changes` (so it can be undone).
 */
export function detectMainContent(body: Element, options: DetectOptions, changes: DomChanges): Element | undefined {
  const walk = walkDocument(body, options);
  const climbed = chooseTop(walk, body);
  if (!climbed) return undefined;
  const scored = narrowToNamedContent(walk, narrowToInlineContainer(walk, climbed));
  const chosen = preferTitled(walk, scored, body, options.title ?? "");
  const widened = widenToNamedParent(walk, widenToPageProse(walk, chosen, body), body);
  const top = widened === chosen ? joinSameNamedParts(walk, chosen, body) : widened;
  const members = collectSiblings(walk, top);
  let root: Element;
  if (members.length === 1) {
    root = top.element;
  } else {
    root = createElement("div");
    const parent = parentElementOf(top.element) as Element;
    changes.insert(parent, root, members[0] as Element);
    for (const member of members) changes.append(root, member);
  }
  const prose = members.reduce((sum, member) => sum + ownProse(walk.infos.get(member) as Info), 0);
  removeCommentSection(walk, root, changes);
  clean(walk, root, root, changes, prose / 2);
  removeTrailingLinkLines(walk, root, changes);
  return root;
}
