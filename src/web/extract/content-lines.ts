/**
 * @module web/extract/content-lines — lines of chrome by what their own text says: photo credits and captions that
 * carry one, figure labels, datelines, pointers to other articles, page controls, agency signatures, breadcrumb
 * trails, advertisement and comment labels. A rule that judges one short element inside the content by its text
 * belongs here; content-clean.ts walks the content and removes what these rules name.
 */
import type { Element } from "./dom.ts";
import { closestNamed, selectAllIn, selectFirstIn, textOf } from "./dom.ts";
import { isCommentThreadTitle } from "./content-signals.ts";
import { BLOCK_TAGS, HEADING_TAGS, type Info } from "./content-score.ts";

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
 * not removed on its own (see clean): a caption with a mark goes whole (isCreditedCaption), one without as a picture's
 * caption (content-captions.ts) unless the content's captions tell its story.
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
 * and this one kind costs them nothing (measured in the commit that added the rule). It goes whatever the share of the
 * content's captions, which decides only for captions without a mark (content-captions.ts).
 */
function isCreditedCaption(element: Element, context: number, text: string | undefined): boolean {
  // The outermost caption is read once (a page nesting captions thousands deep is not read again at each level).
  if (element.name === "figcaption") return (context & IN_CAPTION) === 0 && CAPTION_CREDIT.test(text ?? textOf(element));
  // A caption set in another block inside the figure (an "h2 class=figure__caption"): its text if it is short.
  return (context & IN_FIGURE) !== 0 && text !== undefined && BLOCK_TAGS.has(element.name) && CAPTION_CREDIT.test(text);
}

/** What clean's `inFigure` says: the element is or lies inside a <figure>, a <figcaption>. */
export const IN_FIGURE = 1;
export const IN_CAPTION = 2;

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
export const MAX_POINTER_CHARS = 200;
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

/**
 * The whole text of a picture gallery's counter: which slide of how many shows ("1 of 5", "2 / 62", "Bild 3 von 12",
 * "Photo 4 of 10"). Not a fraction ("1/2", unspaced), which a recipe's table sets in a cell of its own.
 */
const SLIDE_COUNTER = /^[\s(]*(?:(?:image|photo|picture|slide|bild|foto|zdjęcie)\s+)?(\d{1,3})\s*(?:of|von|z|de|sur|\s\/\s)\s*(\d{1,3})[\s)]*$/iu;

/** Whether a short line is only a gallery's slide counter: slide N of M, N no more than M, M at least 2. */
export function isSlideCounter(text: string): boolean {
  const found = SLIDE_COUNTER.exec(text);
  if (!found) return false;
  const [shown, total] = [Number(found[1]), Number(found[2])];
  return shown >= 1 && shown <= total && total >= 2;
}

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

/** Where a line stands, for the rules that look beyond its text. */
export interface LinePlace {
  /** IN_FIGURE and IN_CAPTION bits: the element is or lies inside a <figure>, a <figcaption>. */
  readonly inFigure: number;
  /** The counts of the element's parent, when it has them. */
  readonly parent: Info | undefined;
  /** Whether the element holds most of the content's prose: no caption rule removes it. */
  readonly guarded: () => boolean;
}

/**
 * Whether `element` (its counts `info`; `text`, its text when it is short enough to read, else undefined) is a line
 * of chrome by what it says.
 */
export function isChromeLine(element: Element, info: Info, text: string | undefined, place: LinePlace): boolean {
  if ((isCreditedCaption(element, place.inFigure, text) || isCreditedLine(element, info, text) || isFigureLabelLine(info, text)) && !place.guarded()) return true;
  if (info.chars <= MAX_CREDIT_CHARS && isPhotoCredit(element, text) && !closestNamed(element, "figcaption")) return true;
  if (text === undefined) return false;
  // A line of its own: a block, or an inline element that is (with a label) all its block's own text.
  const ownLine = BLOCK_TAGS.has(element.name) || (place.parent !== undefined && place.parent.inlineChars <= info.chars + MAX_DATELINE_LABEL_CHARS);
  if (ownLine && info.chars <= MAX_DATELINE_CHARS && isDateline(element, text)) return true;
  if (BLOCK_TAGS.has(element.name) && info.chars <= MAX_AGENCY_LINE_CHARS && AGENCY_LINE.test(text)) return true;
  // A line that only names the comments ("Keine Kommentare", "Comments are closed.") is their chrome too.
  return isBreadcrumbLine(text, info) || isCommentThreadTitle(text) || AD_LABEL.test(text) || CONTROL_LABEL.test(text) || isSlideCounter(text) || isPointerLine(text, info);
}
