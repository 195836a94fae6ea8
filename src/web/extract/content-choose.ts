/**
 * @module web/extract/content-choose — choosing: which of the scored blocks is the page's main content, and
 * which of its siblings join it. Readability's ranking and climb, then the moves that page structure
 * justifies (narrowing to an inline container or to a block named as content, the block holding the title
 * heading, widening to the prose of the page or to a named parent, joining parts of one article). A rule
 * that decides where the content starts and ends, before anything inside it is removed, belongs here.
 */
import { holdsPageTitle, titleHeadingAmong } from "./content-title.ts";
import { contains, elementChildrenOf, isTag, parentElementOf, selectAllIn, selectFirstIn, textOf, type Element } from "./dom.ts";
import { CHROME_NAMED, classifyElement, contentClassTokens, isContentBlock, namesOtherStories, weighNames } from "./content-signals.ts";
import { MIN_PART_PROSE, finalScore, linkDensity, ownProse, type Info, type Walk } from "./content-score.ts";

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
const MIN_CANDIDATE_CHARS = 100;

function infoOf(walk: Walk, element: Element | null): Info | undefined {
  return element ? walk.infos.get(element) : undefined;
}

/** Readability's climb: several near-best candidates under one ancestor, or a better-scored parent, win. */
function chooseTop(walk: Walk, body: Element): Info | undefined {
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
    // A list of other stories ("most-popular", "related") is no part of the article, however well its teasers score.
    if (namesOtherStories(sibling)) continue;
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
  const titledStory = anotherStoryBeside(walk, top.element, heading, body, title);
  if (titledStory && finalScore(titledStory) >= topScore * TITLED_SHARE) return titledStory;
  for (let node = parentElementOf(heading); node && node !== body; node = parentElementOf(node)) {
    if (contains(node, top.element)) return top;
    const info = walk.infos.get(node);
    if (!info?.candidate || info.chars < MIN_CANDIDATE_CHARS || NOT_CANDIDATES.has(node.name)) continue;
    const evidence = ownProse(info) >= ownProse(top) || (isContentBlock(node) && insideChrome(top.element, body));
    return finalScore(info) >= topScore * TITLED_SHARE && evidence ? info : top;
  }
  return top;
}

/**
 * Two stories on one page, each in its own <article> (a news site's next story, loaded below the one the page is
 * about): when the chosen block lies in an article whose headline (its first h1, else its first h2 or h3, as in a
 * list of stories titled in h2) is not the page's title, and the title heading lies in another article, the
 * best-scoring candidate block of the titled article.
 */
function anotherStoryBeside(walk: Walk, chosen: Element, heading: Element, body: Element, title: string): Info | undefined {
  const chosenArticle = closestArticle(chosen, body);
  const titledArticle = closestArticle(heading, body);
  if (!chosenArticle || !titledArticle || contains(chosenArticle, titledArticle) || contains(titledArticle, chosenArticle)) return undefined;
  const headline = selectFirstIn(chosenArticle, "h1") ?? selectFirstIn(chosenArticle, "h2,h3");
  if (!headline || holdsPageTitle(textOf(headline).replace(/\s+/g, " ").trim(), title)) return undefined;
  let best: Info | undefined;
  for (const info of walk.infos.values()) {
    if (!info.candidate || info.chars < MIN_CANDIDATE_CHARS || NOT_CANDIDATES.has(info.element.name) || !contains(titledArticle, info.element)) continue;
    if (!best || finalScore(info) > finalScore(best)) best = info;
  }
  return best;
}

function closestArticle(element: Element, body: Element): Element | undefined {
  for (let node: Element | null = element; node && node !== body; node = parentElementOf(node)) if (node.name === "article") return node;
  return undefined;
}

/** Whether an element lies inside a block whose class or id names it chrome (kept by the try, as a sidebar inside the content wrapper is). */
function insideChrome(element: Element, body: Element): boolean {
  for (let node = parentElementOf(element); node && node !== body; node = parentElementOf(node)) {
    if ((classifyElement(node) & CHROME_NAMED) !== 0) return true;
  }
  return false;
}

/**
 * How far above the chosen part the parts may meet: a split article's parts sit in sibling wrappers; blocks
 * of the same name further away are teasers of other articles (dev set: 2 levels 0.9361, 3 levels 0.9361,
 * any distance 0.9343: a sidebar's "entry-content" teasers joined a post).
 */
const MAX_PART_LEVELS = 3;

/**
 * An article split across containers of the same class ("story-body story-body-1" and "story-body
 * story-body-2" in sibling wrappers, related links between): the chosen part, when it is named as content (by its
 * class, or by its id, itemprop or tag while the class is the page's own: The Atlantic's "l-article__section
 * s-cms-content" sections, each itemprop="articleBody", one per wrapper), widens to the nearest ancestor (below body, at most MAX_PART_LEVELS up) holding every element
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
 * one of them, or the element's id, itemprop or tag, names it as content.
 */
function contentName(element: Element): string {
  if (contentClassTokens(element).length === 0 && !isContentBlock(element)) return "";
  const tokens = (element.attribs.class ?? "").split(/\s+/).filter((token) => token !== "");
  return [...new Set(tokens.map((token) => token.replace(/[-_]?\d+$/, "").toLowerCase()))].sort().join(" ");
}

/** Longest lead (characters of its blocks together): more is a part of the article the scores left out on purpose, or another story. */
const MAX_LEAD_CHARS = 800;
/** Least characters of a lead block: a date or a label is no lead. */
const MIN_LEAD_CHARS = 40;
/** Most levels from the title heading, and from the chosen block, up to the block that holds both. */
const MAX_LEAD_LEVELS = 4;

/**
 * The lead (standfirst, intro, teaser) between the page's title heading and the chosen block, when the block
 * does not hold the heading: up to two prose blocks that follow the heading in document order, before the
 * block, inside the nearest ancestor holding both (a few levels up at most). Modern pages set the lead in the
 * article's header beside the title, apart from the body whose paragraphs score; the headline came back
 * (extract.ts keeps it) but the lead was lost. A block qualifies when it is a paragraph of text (no block
 * inside it), mostly not links, not dropped by the walk, and not inside something dropped that does not also
 * hold the heading.
 */
function findLead(walk: Walk, top: Info, body: Element, title: string): Element[] {
  const heading = titleHeadingAmong(walk.headings, title);
  if (!heading) return [];
  // The chosen block's ancestors below the body, and the heading's up to the block holding both.
  const topPath = new Set<Element>();
  for (let node = parentElementOf(top.element); node && node !== body; node = parentElementOf(node)) topPath.add(node);
  const headingPath = new Set<Element>();
  let holder: Element | null = parentElementOf(heading);
  while (holder && !topPath.has(holder)) {
    if (holder === top.element || holder === body || headingPath.size + 1 >= MAX_LEAD_LEVELS) return [];
    headingPath.add(holder);
    holder = parentElementOf(holder);
  }
  if (!holder) return [];
  let depth = 0;
  for (let node = parentElementOf(top.element); node && node !== holder; node = parentElementOf(node)) depth++;
  if (depth >= MAX_LEAD_LEVELS) return [];
  const lead: Element[] = [];
  let chars = 0;
  let passedHeading = false;
  // Document order inside the holder: the lead comes after the heading and before the chosen block. True: stop.
  const visit = (element: Element, level: number): boolean => {
    for (const child of elementChildrenOf(element)) {
      if (child === top.element || topPath.has(child)) {
        return child === top.element || visit(child, level + 1) || true;
      }
      if (child === heading) {
        passedHeading = true;
        continue;
      }
      if (headingPath.has(child)) {
        if (visit(child, level + 1)) return true;
        continue;
      }
      if (!passedHeading || walk.dropped.has(child)) continue;
      const info = walk.infos.get(child);
      if (!info) continue;
      // Another heading opens another section (a slide's title, a box's): no lead of the title's after it, unless the
      // heading is itself a lead (a standfirst set as a subheading).
      if (HEADINGS.has(child.name) && !isLeadHeading(child, info)) return true;
      if (child.name === "figure" || child.name === "figcaption") continue;
      if (isLeadBlock(child, info)) {
        lead.push(child);
        chars += info.chars;
        if (lead.length > 2 || chars > MAX_LEAD_CHARS) return true;
        continue;
      }
      if (level < MAX_LEAD_LEVELS && visit(child, level + 1)) return true;
    }
    return false;
  };
  visit(holder, 0);
  return lead.length <= 2 && chars <= MAX_LEAD_CHARS ? lead : [];
}

const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** A sentence's end (quotes and closing brackets aside): a lead says something; a date line or a byline does not end so. */
const SENTENCE_END = /[.!?…][\s"'”“»«’)\]]*$/u;

/** Whether a block is a paragraph of prose fit to be a lead (see findLead). */
function isLeadBlock(element: Element, info: Info): boolean {
  if (info.inlineChars !== info.chars || info.chars < MIN_LEAD_CHARS || info.headingChars > 0 || linkDensity(info) >= 0.25) return false;
  if (weighNames(element) < 0) return false;
  return SENTENCE_END.test(textOf(element).trim());
}

/** Least characters of a heading taken for a lead: a section's title is a few words, a standfirst is sentences. */
const MIN_LEAD_HEADING_CHARS = 80;
/** Least characters of a heading taken for a lead when it does not end as a sentence does. */
const MIN_UNENDED_LEAD_HEADING_CHARS = 100;

/**
 * Whether a subheading (h2-h6) is a lead: sentences of prose set as a heading ("Der Streit zwischen … hat sich
 * weiter verschlechtert."), long and ending as a sentence does (or longer still), not links.
 */
function isLeadHeading(element: Element, info: Info): boolean {
  if (element.name === "h1" || info.chars < MIN_LEAD_HEADING_CHARS || info.inlineChars !== info.chars || linkDensity(info) >= 0.25) return false;
  if (weighNames(element) < 0) return false;
  return info.chars >= MIN_UNENDED_LEAD_HEADING_CHARS || SENTENCE_END.test(textOf(element).trim());
}

/** Most levels above the chosen block whose earlier children are searched for a lead. */
const MAX_LEAD_ABOVE_LEVELS = 5;
/**
 * Most levels down into those earlier children: a standfirst sits in the article's stage as deep as "stage > container >
 * row > body > p" (vergleich.de: at 5 levels the search stopped at the wrapper holding it, at 7 it finds it; no other
 * page of any set changes).
 */
const MAX_LEAD_BELOW_LEVELS = 7;
/** Link density from which a block above the chosen one is a box of links (related articles, share bar), passed over. */
const MAX_LEAD_BOX_LINK_DENSITY = 0.3;
/** Most prose of a block with pictures passed over as a picture and its caption. */
const MAX_PICTURE_PROSE = 300;
/** Class or id words of a picture's text (a caption or credit outside any <figure>). */
const PICTURE_TEXT_NAME = /caption|credit|bildunterschrift|bildtext|copyright/i;

function namesOf(element: Element): string {
  return `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`;
}

/** Prose (characters outside links) of a block above the chosen one that is text of another kind: the search stops there. */
const MIN_OTHER_PROSE = 100;

/**
 * The lead just above the chosen block, when no title heading leads to it (findLead): walking back in document order
 * from the block, through the earlier children of its ancestors (MAX_LEAD_ABOVE_LEVELS up, MAX_LEAD_BELOW_LEVELS down into them, not past an <article> or
 * <main>, which is where the article starts), up to two lead blocks (isLeadBlock, isLeadHeading) before a heading,
 * or before prose of another kind. Short lines between (a byline, a date, a share bar) and figures are passed over.
 * Modern pages set the standfirst in the article's header, apart from the body that scores ("dig-vorspann",
 * "ts-intro", "article-chapo" above the text). Not when the block holds the title heading or an h1: what is
 * above it is above the article.
 */
function findLeadAbove(walk: Walk, top: Info, body: Element, title: string): Element[] {
  const titleHeading = titleHeadingAmong(walk.headings, title);
  if ((titleHeading && contains(top.element, titleHeading)) || selectFirstIn(top.element, "h1")) return [];
  const lead: Element[] = [];
  let chars = 0;
  // The elements before `last` among `parent`'s children, latest first. "stop": the search ends.
  const visit = (parent: Element, last: Element | null, depth: number): boolean => {
    const children = elementChildrenOf(parent);
    let i = last ? children.indexOf(last) - 1 : children.length - 1;
    for (; i >= 0; i--) {
      const child = children[i] as Element;
      if (walk.dropped.has(child) || child.name === "figure" || child.name === "figcaption") continue;
      const info = walk.infos.get(child);
      if (!info || info.chars === 0) continue;
      const heading = HEADINGS.has(child.name);
      // A heading ends the search, unless it is the lead: what was found below the headline (an h1, the title's) is
      // the lead; below another heading ("Newsletter"), it is that section's.
      if (heading && !isLeadHeading(child, info)) {
        if (child.name !== "h1" && !holdsPageTitle(textOf(child).replace(/\s+/g, " ").trim(), title)) lead.length = 0;
        return true;
      }
      // A picture with its caption, a box of links, a caption or credit named so, a block named as chrome: passed over.
      if (linkDensity(info) >= MAX_LEAD_BOX_LINK_DENSITY || PICTURE_TEXT_NAME.test(namesOf(child)) || weighNames(child) < 0) continue;
      if (info.images > 0 && ownProse(info) < MAX_PICTURE_PROSE) continue;
      const line = info.inlineChars === info.chars;
      if (heading || isLeadBlock(child, info)) {
        lead.unshift(child);
        chars += info.chars;
        if (lead.length > 2 || chars > MAX_LEAD_CHARS) return true;
        continue;
      }
      if (line || depth >= MAX_LEAD_BELOW_LEVELS) {
        if (ownProse(info) >= MIN_OTHER_PROSE) return true;
        continue;
      }
      if (visit(child, null, depth + 1)) return true;
    }
    return false;
  };
  let child = top.element;
  for (let level = 0; level < MAX_LEAD_ABOVE_LEVELS; level++) {
    const parent = parentElementOf(child);
    if (!parent || parent === body) break;
    // The lead found at one level is the one nearest the block: no further up.
    if (visit(parent, child, 1) || lead.length > 0) break;
    if (parent.name === "article" || parent.name === "main") break;
    child = parent;
  }
  return lead.length <= 2 && chars <= MAX_LEAD_CHARS ? lead : [];
}

/** What was chosen: the block the siblings were collected round, the elements that make the content in document order, and the lead to put before them. */
export interface Choice {
  top: Info;
  members: Element[];
  lead: Element[];
}

/** The page's main content as scored by `walk` (see the module comment); undefined when nothing scored. */
export function chooseContent(walk: Walk, body: Element, title: string): Choice | undefined {
  const climbed = chooseTop(walk, body);
  if (!climbed) return undefined;
  const scored = narrowToNamedContent(walk, narrowToInlineContainer(walk, climbed));
  const chosen = preferTitled(walk, scored, body, title);
  const widened = widenToNamedParent(walk, widenToPageProse(walk, chosen, body), body);
  const top = widened === chosen ? joinSameNamedParts(walk, chosen, body) : widened;
  const members = collectSiblings(walk, top);
  const found = findLead(walk, top, body, title);
  const lead = (found.length > 0 ? found : findLeadAbove(walk, top, body, title)).filter((element) => !members.some((member) => contains(member, element)));
  return { top, members, lead };
}
