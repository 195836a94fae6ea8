/**
 * @module web/extract/content-clean — cleaning the chosen content: walks it and removes what inside it is page
 * chrome, judged from the walk's counts and the block's place (Readability's conditional cleaning of blocks and
 * headings, a comment section that names itself only by its heading or anchor). A rule that judges a block inside
 * the detected content by its counts belongs here; one that judges a short line by its text is content-lines.ts,
 * and one that removes from the content's end is content-tail.ts. Removal by markup alone (scripts, hidden
 * elements, navigation, landmarks) for a subtree no walk scored, a selector's scope or a fallback, is html-clean.ts.
 */
import type { DomChanges } from "./content-changes.ts";
import { elementChildrenOf, isTag, isText, parentElementOf, previousElementOf, selectAllIn, textOf, type ChildNode, type Element } from "./dom.ts";
import { CONTENT_NAMED, classifyElement, headingNamesChrome, isCommentThread, isCommentThreadTitle, namesCommentThread, weighNames } from "./content-signals.ts";
import { HEADING_TAGS, MIN_PART_PROSE, baseScore, linkDensity, ownProse, type Info, type Walk } from "./content-score.ts";
import { IN_CAPTION, IN_FIGURE, MAX_POINTER_CHARS, isChromeLine } from "./content-lines.ts";
import { captionsAreFew, pictureCaption, type CaptionMark } from "./content-captions.ts";
import { removeTrailingHeadings, removeTrailingLinkLines } from "./content-tail.ts";

/** Containers the conditional cleaning judges (Readability's list plus sections). */
const CLEANED_TAGS = new Set(["div", "section", "table", "ul", "ol", "dl", "aside", "header", "footer", "figure", "center"]);

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
  const weight = weighNames(element, !walk.keepComments);
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


/**
 * Class or id words of a recipe's parts (split at -, _ and camelCase): the ingredients and the method, in the languages
 * of the sets ("wprm-recipe-ingredients", "recipe-card-directions", "preparation-step-items", "recipePartSteps").
 */
const RECIPE_PART_NAME =
  /(^|[\s_-])(ingredients?|ingredient[-_]?(list|group|item)s?|zutaten|składniki|ingrédients|ingredienti|ingredientes|instructions?|directions?|direction[-_]?steps?|preparation[-_]?steps?|recipe[-_]?steps?|recipe[-_]?part[-_]?steps?|zubereitung(?:sschritte)?)(?=$|[\s_-])/i;

/**
 * Whether a block holds a recipe's ingredients or method, as its names or its descendants' say: a list of short
 * lines ("135 g Butter"), often linked, that the counting rules take for chrome is the recipe itself.
 */
function holdsRecipePart(element: Element): boolean {
  const stack: Element[] = [element];
  while (stack.length > 0) {
    const node = stack.pop() as Element;
    const names = `${node.attribs.class ?? ""} ${node.attribs.id ?? ""}`;
    if (names.length > 1 && RECIPE_PART_NAME.test(names.replace(/([a-z])([A-Z])/g, "$1-$2"))) return true;
    for (const child of node.children) if (isTag(child)) stack.push(child);
  }
  return false;
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
 * empty result sent the page to the whole-body fallback. `namedChars`: see isBulkOfNamed; `inFigure`: whether `element`
 * is or lies inside a <figure> (IN_FIGURE) or a <figcaption> (IN_CAPTION), see isCreditedCaption.
 */
function clean(walk: Walk, element: Element, root: Element, changes: DomChanges, guard: number, dropsCaption: (how: CaptionMark | undefined) => boolean, namedChars = 0, inFigure = 0): void {
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
    // A form is a search box or a comment form, unless it holds most of the content (a shop's product page wraps the
    // product, its description with it, in the form that puts it in the basket).
    if (child.name === "form" && !isGuarded(child, info, guard)) {
      changes.remove(child);
      continue;
    }
    if (CLEANED_TAGS.has(child.name) && !isParagraphDiv(child, info) && !isBulkOfNamed(child, info, named) && !isGuarded(child, info, guard) && looksLikeChrome(walk, child, info, root) && !holdsRecipePart(child)) {
      changes.remove(child);
      continue;
    }
    // The text rules read a short element's text once: a lone element child holding all its parent's text was read with the
    // parent (a page nested thousands deep would be read once per level, quadratically).
    const loneChild = element !== root && children.length === 1 && elementInfo?.chars === info.chars;
    const text = info.chars <= MAX_POINTER_CHARS && !loneChild ? textOf(child) : undefined;
    if (isChromeLine(child, info, text, { inFigure, parent: elementInfo, guarded: () => isGuarded(child, info, guard) }) || (dropsCaption(pictureCaption(child, walk.infos, (inFigure & IN_CAPTION) !== 0)) && !isGuarded(child, info, guard))) {
      changes.remove(child);
      continue;
    }
    if (HEADING_TAGS.has(child.name) && weighNames(child) < 0) {
      changes.remove(child);
      continue;
    }
    clean(walk, child, root, changes, guard, dropsCaption, named, inFigure | (child.name === "figure" ? IN_FIGURE : 0) | (child.name === "figcaption" ? IN_CAPTION : 0));
  }
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

/**
 * Removes the chrome inside the chosen content `root`, whose members hold `prose` characters outside links
 * (a block holding half of that is beyond the counting rules: see clean).
 */
export function cleanContent(walk: Walk, root: Element, prose: number, changes: DomChanges, statesArticleInJsonLd?: () => boolean): void {
  removeCommentSection(walk, root, changes);
  // Counted before the walk removes any (a caption with a credit's mark goes whatever their share).
  const few = captionsAreFew(root, prose, walk.infos);
  const dropsCaption = (how: CaptionMark | undefined) => few && how !== undefined && (how === "marked" || statesArticleInJsonLd?.() === true);
  clean(walk, root, root, changes, prose / 2, dropsCaption);
  removeTrailingLinkLines(walk, root, changes);
  removeTrailingHeadings(root, changes);
}
