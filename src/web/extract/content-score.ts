/**
 * @module web/extract/content-score — scoring: one walk over the DOM that counts, for every element, its text,
 * link text, commas, paragraphs, images, list items and content names, and lets each paragraph's score flow to
 * its ancestors (Readability's manner, without cloning or re-walking the document). A rule that changes what an
 * element counts, how a paragraph scores or what the walk drops unseen belongs here; the measures the choosing
 * and cleaning rules read from those counts (link density, prose, final score) are defined here too.
 */
import type { BlockJudge } from "./block-filter.ts";
import { isTag, isText, selectFirstIn, type ChildNode, type Element } from "./dom.ts";
import { LAYOUT_NAMED, NEVER_CONTENT, NEVER_CONTENT_TAGS, CHROME_TAGS, CONTENT_NAMED, classifyElement, isCommentThread, isDroppedByName, marksContent, weighNames } from "./content-signals.ts";

/** Elements that start a new block of text (a paragraph's text never crosses one). */
export const BLOCK_TAGS = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "div", "dl", "dt", "fieldset",
  "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "main", "ol", "p", "pre",
  "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "br",
]);
export const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
const COMMA = /[,\u060C\uFE50\uFE10\uFE11\u2E41\u2E34\u2E32\uFF0C\u3001]/g;
const MIN_PARAGRAPH_CHARS = 25;

export interface Info {
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
  /**
   * Keep blocks named as comment threads, which the other tries drop whatever they hold, and let their names weigh
   * nothing (the last try, for a page whose text is all discussion: a forum thread whose posts are "comments", a live
   * ticker's "live-match-comments").
   */
  keepComments?: boolean;
  /** The page's <title>, to find the heading that holds it (see preferTitled). */
  title?: string;
  /** The learned filter's judge of the cleaned content's leaf blocks (block-filter.ts); none: no such filter. */
  blocks?: BlockJudge;
  /**
   * Whether the publisher states the page an article in JSON-LD (content-declared.ts, gate "json-ld"), asked only when
   * the content holds a caption named so by its class (content-captions.ts), which leaves such a page's content. Absent: no.
   */
  statesArticleInJsonLd?: () => boolean;
}

export interface Walk {
  infos: Map<Element, Info>;
  dropped: Set<Element>;
  candidates: Info[];
  useNames: boolean;
  keepComments: boolean;
  /** One list per chrome-named element being visited (innermost last). */
  pending: PendingScore[][];
  /** The h1-h3 elements visited, in document order (see preferTitled). */
  headings: Element[];
  /** The walked body, and its text's length once a rule has asked for it (see chromeTagHoldsContent). */
  body: Element;
  pageChars: number | undefined;
}

function createInfo(element: Element): Info {
  return {
    element, chars: 0, linkChars: 0, commas: 0, inlineChars: 0, inlineLinkChars: 0, inlineCommas: 0,
    paragraphs: 0, images: 0, listItems: 0, embeds: 0, headingChars: 0, contentMarks: 0, contentBlocks: 0, score: 0, candidate: false,
    runs: undefined,
  };
}

export function baseScore(tag: string): number {
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

/**
 * Class or file-name words of an image that is a glyph in the text (a smiley, an icon, an avatar beside a post), not a
 * picture: vBulletin's "inlineimg", XenForo's "smilie", ".../smilies/icon_wink.gif", ".../misc/quote_icon.png". Counted
 * as pictures, a forum post's quote icon and smileys outnumbered its (br-separated, <p>-less) paragraphs, and
 * conditional cleaning took the post for a gallery. A declared small size (16x16) is no such evidence: a spec table's
 * yes/no icons are its own, and with them it was rightly a box of pictures to remove (unseen Dragnet set).
 */
const GLYPH_NAME = /(^|[^a-z])(icons?|smil(?:e|ey|ie|ies|eys)|emoji|emoticons?|inlineimg|avatars?)([^a-z]|$)/i;
/** Whether an image is a glyph in the text rather than a picture (see GLYPH_NAME): it does not count as one of the block's images. */
function isGlyph(image: Element): boolean {
  const { class: className, src } = image.attribs;
  if (className !== undefined && GLYPH_NAME.test(className)) return true;
  // The file's name and its folder's ("smilies/wink.gif", "misc/quote_icon.png"), not the site's path above them.
  return src !== undefined && !src.startsWith("data:") && GLYPH_NAME.test(src.slice(src.lastIndexOf("/", src.lastIndexOf("/") - 1) + 1));
}

/** Share of the page's text a page header or footer must hold to be taken for a wrapper of the page. */
const MOST_OF_PAGE_TEXT = 0.5;

/**
 * Whether a page header or footer (not an article's) holds the content after all: an <article>, a <main> or a
 * block named as content inside it, and most of the page's text. An unclosed <header> round the whole page
 * (its end tag missing, every later element its descendant) held the article, and the page came back empty.
 * An aside never does: one holding articles and most of the text is a sidebar of teasers (unseen Dragnet T83).
 */
function chromeTagHoldsContent(walk: Walk, element: Element, sub: Info): boolean {
  // An aside is beside the content by definition: one holding most of the text is a sidebar of teasers.
  if (element.name === "aside" || (sub.contentBlocks === 0 && selectFirstIn(element, "main") === null)) return false;
  walk.pageChars ??= trimmedTextLength(walk.body);
  return sub.chars >= MOST_OF_PAGE_TEXT * walk.pageChars;
}

/** Characters of text under `root`, each text node trimmed (as the walk counts them). */
function trimmedTextLength(root: Element): number {
  let length = 0;
  const stack: ChildNode[] = [...root.children];
  while (stack.length > 0) {
    const node = stack.pop() as ChildNode;
    if (isText(node)) length += node.data.trim().length;
    else if (isTag(node) && !NEVER_CONTENT_TAGS.has(node.name)) stack.push(...node.children);
  }
  return length;
}

function applyScore(walk: Walk, pending: PendingScore): void {
  const { score, ancestors } = pending;
  for (let level = 0; level < ancestors.length; level++) {
    const ancestor = ancestors[level] as Info;
    if (!ancestor.candidate) {
      ancestor.candidate = true;
      ancestor.score += baseScore(ancestor.element.name) + weighNames(ancestor.element, !walk.keepComments);
      walk.candidates.push(ancestor);
    }
    ancestor.score += score / (level === 0 ? 1 : level === 1 ? 2 : level * 3);
  }
}

/** Text of one paragraph: characters, those inside links, commas. */
export interface TextRun {
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

/**
 * Paragraphs from which an element named chrome only by layout words (a sidebar, sharing, an overlay) holds content:
 * a column of prose is the article, as in a layout "with a fixed sidebar" (Vox Media's "l-sidebar-fixed" around the
 * article's column), which the first try dropped unseen, leaving the headline's hero over the floor.
 */
const MIN_LAYOUT_PROSE_PARAGRAPHS = 8;

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
    const childFlags = NEVER_CONTENT_TAGS.has(childTag) ? NEVER_CONTENT : classifyElement(childElement);
    if (childFlags & NEVER_CONTENT) {
      walk.dropped.add(childElement);
      continue;
    }
    const chromeTag = CHROME_TAGS.has(childTag) && !article;
    const chrome = chromeTag || (walk.useNames ? isDroppedByName(childFlags, childTag, content) : !walk.keepComments && isCommentThread(childFlags, childTag));
    if (chrome) walk.pending.push([]);
    const sub = visit(walk, childElement, stack, link, article, content, childFlags);
    if (chrome) {
      // A block named as content inside a comment thread is a comment's text: only the headline keeps a thread.
      const holdsContent = chromeTag
        ? chromeTagHoldsContent(walk, childElement, sub)
        : isCommentThread(childFlags, childTag) ? selectFirstIn(childElement, "h1") !== null : sub.contentMarks > 0 || ((childFlags & LAYOUT_NAMED) !== 0 && sub.paragraphs >= MIN_LAYOUT_PROSE_PARAGRAPHS);
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
    case "img": if (!isGlyph(element)) info.images++; break;
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

export function linkDensity(info: Info): number {
  return info.chars > 0 ? info.linkChars / info.chars : 0;
}

export function finalScore(info: Info): number {
  return info.score * (1 - linkDensity(info));
}

/** Text that is not link text: what a cleaning rule must not take most of. */
export function ownProse(info: Info): number {
  return info.chars - info.linkChars;
}

/** Least part of the article worth joining: its text outside links. */
export const MIN_PART_PROSE = 100;

export function walkDocument(body: Element, options: DetectOptions): Walk {
  const walk: Walk = { infos: new Map(), dropped: new Set(), candidates: [], useNames: options.useNames, keepComments: options.keepComments === true, pending: [], headings: [], body, pageChars: undefined };
  visit(walk, body, [], false, false, false, 0);
  return walk;
}
