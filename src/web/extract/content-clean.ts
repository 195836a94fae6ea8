/**
 * @module web/extract/content-clean — cleaning the chosen content: removes what inside it is page chrome,
 * judged from the walk's counts and the block's place (Readability's conditional cleaning of blocks and
 * headings, a comment section that names itself only by its heading or anchor, trailing lines of links
 * to other stories). A rule that removes something from inside the detected content belongs here. Removal
 * by markup alone (scripts, hidden elements, navigation, landmarks) for a subtree no walk scored, a
 * selector's scope or a fallback, is html-clean.ts.
 */
import type { DomChanges } from "./content-changes.ts";
import { closestNamed, elementChildrenOf, isTag, isText, lastTextOf, parentElementOf, previousElementOf, selectAllIn, selectFirstIn, textOf, type ChildNode, type Element, type Text } from "./dom.ts";
import { CONTENT_NAMED, classifyElement, headingNamesChrome, isCommentThread, isCommentThreadTitle, namesCommentThread, weighNames } from "./content-signals.ts";
import { BLOCK_TAGS, HEADING_TAGS, MIN_PART_PROSE, baseScore, linkDensity, ownProse, type Info, type Walk } from "./content-score.ts";

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
 * Longest text taken for a photo credit line. Credits are the picture's, not the article's: modern references
 * leave them out (trafilatura's set: 16 of the 286 'without' snippets we kept), while Readability keeps them
 * and Dragnet's truths sometimes do (measured in the commit that added the rule).
 */
const MAX_CREDIT_CHARS = 120;
/** Class or id words of a photo credit or image source (split at - and _, camelCase). */
const CREDIT_NAME = /(^|[\s_-])(credits?|photo[-_]?credits?|image[-_]?credits?|media[-_]?credit|img[-_]?author|image[-_]?source|imagesource|photographer|bildnachweis|bildquelle|fotocredit|image[-_]?copyright)(?=$|[\s_-])/i;
/** A line that opens as a photo credit does, in the languages of the sets ("Foto: …", "Photo by …", "© …", "Fot. …", a post's picture: "Beitragsbild: …", "Titelfoto: …"); not "Source:", which names the facts' origin as often. */
const CREDIT_TEXT = /^[\s(\[]*(?:©|\(c\)|(?:fotos?|photos?|photograph|picture|pictures|image|images|bild|bilder|credits?|crédits?(?: photos?)?|fot\.|titelbild|beitragsbild|titelfoto|aufmacherbild|aufmacherfoto|headerbild|bildquelle|bildnachweis)\s*(?::|by\b|von\b))/i;

/**
 * Whether a short element is a photo credit, by its class or id or by how its text opens. One inside a <figcaption> is
 * not removed on its own (see clean): a caption without a credit mark stays, as Readability's truths keep it, and one
 * with a mark goes whole (isCreditedCaption).
 */
function isPhotoCredit(element: Element, text: string | undefined): boolean {
  const names = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`.replace(/([a-z])([A-Z])/g, "$1-$2");
  return CREDIT_NAME.test(names) || (text !== undefined && CREDIT_TEXT.test(text));
}

/**
 * A credit's mark inside a caption: "©", "(c)", a label ("Foto:", "Photo:", "Photograph:", "Bild:", "Credit:", "Quelle:",
 * "Źródło:", which \b cannot open: it is no ASCII word) or "Photo by", "Foto von", "Bild via". Not an agency's name alone ("Mark Stout/iStock/Getty Images"): on
 * Readability's pages such captions are the whole caption, and its truths keep them.
 */
const CAPTION_CREDIT = /©|\(c\)|\b(?:fotos?|photos?|photograph|bild|credits?|quelle)\s*:|(?:^|[\s(\/])źródło\s*:|\b(?:photo|foto|bild) (?:by|von|via)\b/i;

/**
 * Whether an element is a picture's caption that carries its credit: a <figcaption>, or a short block inside a <figure>,
 * with a credit's mark. Such a caption
 * describes and credits a picture, not the article: the human truths of trafilatura's set and Dragnet's leave captions
 * out (Dragnet's all 17 on the wide set), and the issue counts them as boilerplate; Readability's truths keep captions,
 * and this one kind costs them nothing (measured in the commit that added the rule). A caption without a mark stays.
 */
function isCreditedCaption(element: Element, info: Info, context: number, text: string | undefined): boolean {
  // The outermost caption is read once (a page nesting captions thousands deep is not read again at each level).
  if (element.name === "figcaption") return (context & IN_CAPTION) === 0 && CAPTION_CREDIT.test(text ?? textOf(element));
  // A caption set in another block inside the figure (an "h2 class=figure__caption"): its text if it is short.
  return (context & IN_FIGURE) !== 0 && text !== undefined && BLOCK_TAGS.has(element.name) && CAPTION_CREDIT.test(text);
}

/** What clean's `inFigure` says: the element is or lies inside a <figure>, a <figcaption>. */
const IN_FIGURE = 1;
const IN_CAPTION = 2;

/** Longest block taken for a caption that ends with its credit (no longer than the lines whose text clean reads). */
const MAX_CREDITED_LINE_CHARS = 200;
/**
 * A caption set as a plain block that ends with its credit after "©" or "(c)" ("Marco Odermatt, Ski-Star aus der Schweiz.
 * © AFP / MARCO BERTORELLO", "Le piquet de grève … / (C) Kab Niang"): some words before the mark, a name after it and
 * nothing more. Not a copyright notice ("Copyright © 1996-99 …", "© 2002, 2003 Jamie Zawinski": a year after the mark),
 * which cleaneval's and Readability's truths keep; not "Photograph:" or "Photo credit:" at a line's end, which
 * Dragnet's truths keep on captions outside a <figure> (R123, R128, R218: wide dragnet 0.9638 -> 0.9636 with them).
 */
const ENDS_WITH_CREDIT = /^(?!.*copyright).{15,}(?:©|\(c\))\s*[^.!?©\d]{2,60}$/i;

/**
 * How a figure's caption set as a line of text opens: its label and number ("Abbildung 4:", "Abb. 2:", "Figure 3:",
 * "Fig. 1:", "Grafik:", "Rycina 1:", "Ryc. 2:"). Not "Bild:", a credit's label (CREDIT_TEXT).
 */
const FIGURE_LABEL = /^[\s(\[]*(?:abbildung|abb\.|figure|fig\.|grafik|rycina|ryc\.)\s*\d*\s*:/i;

/**
 * Whether a short line (`text`: its text, read when it is short) is a figure's caption by its label: it describes the
 * picture beside it, which trafilatura's set leaves out as it leaves out every caption (four 'without' snippets of
 * two pages). Cleaneval's truths keep such lines (final-644: 0.009), within the noise of its 300 pages.
 */
function isFigureLabelLine(info: Info, text: string | undefined): boolean {
  return text !== undefined && info.chars <= MAX_CREDITED_LINE_CHARS && FIGURE_LABEL.test(text);
}

/** Whether a short block of text `text` is a caption that ends with its credit (ENDS_WITH_CREDIT). */
function isCreditedLine(element: Element, info: Info, text: string | undefined): boolean {
  return text !== undefined && BLOCK_TAGS.has(element.name) && info.chars <= MAX_CREDITED_LINE_CHARS && ENDS_WITH_CREDIT.test(text.replace(/\s+/g, " ").trim());
}

/** Longest line taken for a dateline. */
const MAX_DATELINE_CHARS = 80;
/**
 * Longest text beside the <time> of a dateline: a label ("Aktualisiert:", "Veröffentlicht am"), not a byline ("Posted on
 * … by Anna Monette Roberts ·", which Dragnet's truths keep: at 40 the wide set's dragnet pages lost 0.0002) nor a
 * time-stamped entry of a live ticker.
 */
const MAX_DATELINE_LABEL_CHARS = 20;

/**
 * Whether a short line is a dateline: the page marks its date as a <time>, and the rest of the line is at most a
 * label. When the article was published or updated is the page's, not the article's text (trafilatura's set counts
 * such lines as boilerplate); the date inside a sentence is kept, as the sentence is longer than a label.
 */
function isDateline(element: Element, text: string): boolean {
  if (element.name !== "time" && !selectFirstIn(element, "time")) return false;
  let timeChars = 0;
  for (const found of element.name === "time" ? [element] : selectAllIn(element, "time")) {
    // A duration marked as a time (a recipe's cookTime: "15 – 30 Min") is the content's.
    const itemprop = found.attribs.itemprop;
    if (itemprop === undefined || /^date/i.test(itemprop)) timeChars += textOf(found).trim().length;
  }
  if (timeChars === 0) return false;
  const rest = text.replace(/\s+/g, " ").trim().length - timeChars;
  return rest <= MAX_DATELINE_LABEL_CHARS;
}

/** Longest line taken for a pointer to other articles ("Read also: <a>…</a>"). */
const MAX_POINTER_CHARS = 200;
/**
 * How a pointer to other articles or a box of them opens, in the languages of the sets: "Read also", "You might also
 * like", "Lesen Sie auch", "Auch interessant", "Ähnliche Beiträge", "Mehr zum Thema", "Weitere Informationen", "Weitere
 * Infos", "Weitere Tipps", "Schon gelesen?", "À lire
 * aussi", "Czytaj też", "Leggi anche". Not "Read more" (in any language) nor "Related:", whose lines Dragnet's truths
 * keep ("[Read More]" under each teaser, "Related: <a>…</a>" inside the story: wide set 0.9519 -> 0.9517 with them).
 */
const POINTER_TEXT = new RegExp(
  "^[\\s\\p{P}]*(?:" +
    [
      "read also\\b", "you (?:might|may) also like",
      "(?:lesen sie|lies) (?:auch|hier)\\b", "auch interessant", "ebenfalls interessant", "(?:das|dieses) (?:könnte|thema könnte) (?:sie|dich) (?:auch )?interessieren", "ähnliche (?:beiträge|artikel)", "verwandte (?:beiträge|artikel|themen)", "weitere (?:beiträge|artikel)\\s*[:?!]", "weitere (?:informationen|infos|tourentipps|tipps)\\b", "mehr zum thema", "schon gelesen", "empfehlungen aus",
      "(?:à|a) lire (?:aussi|également)", "voir aussi", "czytaj (?:też|także|również)", "zobacz (?:też|także|również)", "leggi anche", "lee también",
    ].join("|") +
    ")",
  "iu",
);

/**
 * Whether an element is a pointer to other articles: its text opens with such words and is those words alone or
 * mostly links after them (a heading over a box of links, "Czytaj też: <a>…</a>"), or a heading that adds only where
 * they point ("Mehr zum Thema auf UEPO.de").
 */
function isPointerLine(rawText: string, info: Info): boolean {
  const text = rawText.replace(/\s+/g, " ").trim();
  const opening = POINTER_TEXT.exec(text);
  if (!opening) return false;
  const rest = text.length - opening[0].length;
  return rest <= 3 || info.linkChars >= rest * 0.6 || (HEADING_TAGS.has(info.element.name) && rest <= MAX_POINTER_HEADING_REST);
}

/** Most characters after a pointer's words in a heading over a box of links: where they point ("Mehr zum Thema auf UEPO.de"). */
const MAX_POINTER_HEADING_REST = 25;

/**
 * The whole text of a page control's label: print, share, bookmark, back to the list, a rating or feedback prompt
 * ("Drucken", "Teilen", "Merken", "Zur Übersicht", "Was this article helpful?", "(Noch keine Bewertungen)"), a picture
 * gallery's or lightbox's control ("Vergrößern", "Bild anzeigen", "Bild schließen", "Caption", "Close", "View gallery",
 * "Slideshow ( 15 images )"), a shop link's ("Zum Shop").
 */
const CONTROL_LABEL = /^[\s\p{P}]*(?:print|print this(?: article| page)?|drucken|artikel drucken|rezept drucken|drukuj|imprimer|share|share this(?: article| story| post)?|teilen|artikel teilen|udostępnij|partager|merken|bookmark|zurück|zur übersicht|back to (?:overview|top)|nach oben|was this (?:article|page|post) helpful|war (?:der|dieser) (?:artikel|beitrag) (?:nützlich|hilfreich)|möchten sie (?:den|diesen) artikel teilen|artikel bewerten|\(?noch keine bewertungen\)?|vergrößern|zum vergrößern(?: bitte)?(?: auf das bild)? (?:an)?klicken|click to enlarge|enlarge|bild(?:er)? (?:anzeigen|schließen)|alle bilder anzeigen|zum shop|view gallery|open gallery|galerie öffnen|caption|close|schließen|slideshow \( ?\d+ images? ?\))[\s\p{P}]*$/iu;

/** Longest line taken for a news agency's signature. */
const MAX_AGENCY_LINE_CHARS = 40;
/**
 * A line that is only a news agency's signature, with an editor's initials or a photographer's name ("aja/PAP",
 * "(dpa)", "PAP/ Rafał Guz", "AFP"): who supplied the story or its picture, not the story.
 */
const AGENCY_LINE = /^[\s(]*(?:[\p{L}.]{2,6}\s*\/\s*)?(?:pap|dpa|afp|apa|ap|reuters|kna|epd|sid|ddp|dapd|ansa|efe)(?:\s*\/\s*[\p{L} .-]+)?[\s)]*$/iu;

/** A step of a breadcrumb trail: a separator between spaces ("Home > Blog > Post", "Start » News"). */
const BREADCRUMB_STEP = /\s[>»›→]\s/g;

/**
 * Whether a short line is a breadcrumb trail left inside the content: two steps or more, and mostly link text (the
 * trail links each level above the page). A sentence that compares ("a > b") has little link text.
 */
function isBreadcrumbLine(text: string, info: Info): boolean {
  return info.linkChars >= info.chars / 2 && (text.match(BREADCRUMB_STEP)?.length ?? 0) >= 2;
}

/** The whole text of an advertisement's label, in the languages of the sets ("Advertisement", "- Anzeige -", "Reklama"). */
const AD_LABEL = /^[\s\p{P}]*(?:advertisement|advertising|sponsored(?: content)?|anzeige|werbung|reklama|publicité|publicidad|pubblicità)[\s\p{P}]*$/iu;

/**
 * Removes the chrome inside `element`. A rule never removes a block holding most of the content's
 * prose (`guard`: half the root's): Readability's rules judge a block by its counts alone, so a
 * gallery post (more images than paragraphs) or a list-heavy entry lost the whole article and the
 * empty result sent the page to the whole-body fallback. `namedChars`: see isBulkOfNamed; `inFigure`: whether `element`
 * is or lies inside a <figure> (IN_FIGURE) or a <figcaption> (IN_CAPTION), see isCreditedCaption.
 */
function clean(walk: Walk, element: Element, root: Element, changes: DomChanges, guard: number, namedChars = 0, inFigure = 0): void {
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
    if (isCreditedCaption(child, info, inFigure, text) && !isGuarded(child, info, guard)) {
      changes.remove(child);
      continue;
    }
    if ((isCreditedLine(child, info, text) || isFigureLabelLine(info, text)) && !isGuarded(child, info, guard)) {
      changes.remove(child);
      continue;
    }
    if (info.chars <= MAX_CREDIT_CHARS && isPhotoCredit(child, text) && !closestNamed(child, "figcaption")) {
      changes.remove(child);
      continue;
    }
    // A line of its own: a block, or an inline element that is (with a label) all its block's own text.
    const ownLine = BLOCK_TAGS.has(child.name) || (elementInfo !== undefined && elementInfo.inlineChars <= info.chars + MAX_DATELINE_LABEL_CHARS);
    if (text !== undefined && ownLine && info.chars <= MAX_DATELINE_CHARS && isDateline(child, text)) {
      changes.remove(child);
      continue;
    }
    // A line that only names the comments ("Keine Kommentare", "Comments are closed.") is their chrome too.
    if (text !== undefined && BLOCK_TAGS.has(child.name) && info.chars <= MAX_AGENCY_LINE_CHARS && AGENCY_LINE.test(text)) {
      changes.remove(child);
      continue;
    }
    if (text !== undefined && isBreadcrumbLine(text, info)) {
      changes.remove(child);
      continue;
    }
    if (text !== undefined && (isCommentThreadTitle(text) || AD_LABEL.test(text) || CONTROL_LABEL.test(text) || isPointerLine(text, info))) {
      changes.remove(child);
      continue;
    }
    if (HEADING_TAGS.has(child.name) && weighNames(child) < 0) {
      changes.remove(child);
      continue;
    }
    clean(walk, child, root, changes, guard, named, inFigure | (child.name === "figure" ? IN_FIGURE : 0) | (child.name === "figcaption" ? IN_CAPTION : 0));
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
function removeTrailingLinkLines(walk: Walk, root: Element, changes: DomChanges): void {
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
export function cleanContent(walk: Walk, root: Element, prose: number, changes: DomChanges): void {
  removeCommentSection(walk, root, changes);
  clean(walk, root, root, changes, prose / 2);
  removeTrailingLinkLines(walk, root, changes);
  removeTrailingHeadings(root, changes);
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
function removeTrailingHeadings(root: Element, changes: DomChanges): void {
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
