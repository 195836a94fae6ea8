/**
 * @module web/extract/content-signals — what an element's tag, class, id and role say about whether it is
 * page content: elements never content (scripts, forms, navigation), page chrome named by its
 * class or id (comments, sharing, related links, sidebars, ads, cookie banners), and the weight a
 * class or id adds to a content candidate's score. General patterns of how sites name things,
 * not rules for particular sites.
 */
import { isTag, isText, selectFirstIn, type Element } from "./dom.ts";

/**
 * Tags whose subtree is never main content. FORM is not among them (some frameworks wrap the whole
 * page in one); a form inside the chosen content is removed.
 */
export const NEVER_CONTENT_TAGS = new Set([
  "script", "style", "noscript", "template", "title", "meta", "link", "iframe", "object", "embed", "svg", "canvas",
  "button", "select", "input", "textarea", "nav", "dialog", "menu", "head", "audio", "video", "map", "label",
]);

/** Page chrome when not inside an article. */
export const CHROME_TAGS = new Set(["aside", "header", "footer"]);

const CHROME_ROLES = new Set([
  "navigation", "search", "dialog", "alertdialog", "banner", "contentinfo", "complementary", "menu", "menubar", "toolbar",
]);

/**
 * Cookie and consent banners (CMPs: OneTrust, Cookiebot, Quantcast, Didomi, generic), and the placeholders consent
 * plugins put where an embedded post or video would be until the reader agrees ("Klicken Sie auf den Button, um den
 * Inhalt zu laden", "Wir respektieren deine Privatsphäre": Borlabs Cookie's content blocker, Complianz, Usercentrics,
 * Embed Privacy and the like), with a copy of the embed's text that the page itself does not show.
 */
export const COOKIE_BANNER =
  /cookie[-_]?(banner|notice|consent|bar|policy|popup|law|message|warning|wall)|consent[-_]?(banner|manager|popup|bar|modal|placeholder)|gdpr|onetrust|cookiebot|didomi|qc-cmp|cmp[-_]?(container|banner)|cc[-_](window|banner)|truste|content[-_]?blocker|brlbs|privacy[-_]embed|embed[-_]privacy|third[-_]party[-_]services|cmplz[-_]placeholder|uc[-_]embedding/i;

/** Words of comment threads (alone, or compounded: commentbody, commentform): never the main content, whichever try reads the page. */
const COMMENT_WORD = /(^|[-_])(comments?|comment(?:list|body|bodies|form|wrap|wrapper|text|content|area|container|block|entry|entries|thread)|commentary[-_]?list|disqus|respond|repl(y|ies)|talkback)(?=$|[-_\d])/i;
/**
 * Words (in class/id tokens split at - and _) of page chrome: sharing and social widgets, related/popular
 * lists, menus, breadcrumbs, pagination, ads and sponsored blocks, sign-up boxes, copyright notices, the
 * "posted in ... filed under" line of WordPress themes (postmetadata), disclaimers and affiliate disclosures (out of
 * every set's truths: 60 of 61 such blocks on the dev and wide sets), affiliate notes ("affiliateText"), the Simple
 * Author Box plugin's box (saboxplugin) and promotional link boxes ("linkbox"). Not "license" nor "notice": Readability's
 * and Dragnet's truths keep a page's licence text.
 */
const CHROME_WORD =
  /(^|[-_])(widgets?|addthis|sharethis|shareaholic|sharedaddy|sociable|facebook|twitter|tweet|related|relatedposts|recommended|recommendations|popular|mostpopular|trending|menu|navbar|nav|navigation|breadcrumbs?|pagination|pager|paging|tags|tagcloud|categories|ads|advert|advertisement|adsense|sponsor|sponsored|promo|newsletter|subscribe|signup|login|footer|masthead|skip|rss|authorbio|bio|biography|outbrain|taboola|zergnet|yarpp|copyright|postmetadata|disclaimer|disclosure|affiliate|saboxplugin|linkbox)(?=$|[-_\d])/i;
/** Phrases of page chrome, as CHROME_WORD; a table of contents ("toc_container", "ez-toc-container"), not a heading's "toc-backref" link. */
const CHROME_PHRASE = /(^|[-_])(most[-_](read|viewed|popular|shared|emailed|commented)|also[-_](read|like)|more[-_](stories|news|from|on)|sign[-_]up|author[-_](bio|box|info)|about[-_]the[-_]author|tag[-_](list|cloud)|prev[-_]next|you[-_]may[-_]like|toc[-_]?(container|list|wrapper|title|box)|table[-_]of[-_]contents)(?=$|[-_\d])/i;
/**
 * Layout and behaviour words: where a block sits or how it shows (a sidebar column, an overlay, a collapsed
 * "read more", sharing hooks on images). Chrome on their own, but an article's own wrapper often carries
 * them, so inside a container named as content they are evidence to weigh, not a verdict. Not "widget":
 * inside an article it names embedded galleries and players far more often than the article's text
 * (wide set: Readability's pages 0.966 with it here, 0.978 without; an article inside a widget-named
 * block keeps itself by the content names it holds, as Blogger's "widget Blog" does).
 */
const LAYOUT_WORD =
  /(^|[-_])(share|shares|sharing|social|sidebar|side[-_]bar|banner|hidden|popup|overlay|read[-_]more)(?=$|[-_\d])/i;

/**
 * Class words with "hidden" in them that leave the element shown on a desktop screen: hidden only on small screens or
 * in print ("hidden-xs", "hidden-phone", "elementor-hidden-phone", "hidden-sm-down"), or naming a part of it hidden
 * ("field--label-hidden", Drupal's class on every field whose label is not shown; "overflow-hidden"). Read as "hidden",
 * they dropped the text of whole pages.
 */
const SHOWN_HIDDEN_TOKEN = /(^|[\s_-])(hidden[-_]+(xs|sm|phone|mobile|print|small|tablet)([-_]+(down|only))?|(label|title|overflow|lazy)[-_]+hidden)(?=\s|$)/gi;

/**
 * Whether a short heading's text names what follows it as chrome in the words class names use ("Related
 * Posts", "Most Popular", "You may like", "Comments").
 */
export function headingNamesChrome(text: string): boolean {
  const words = text.trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-");
  return words.length > 0 && words.length <= 60 && (COMMENT_WORD.test(words) || CHROME_WORD.test(words) || CHROME_PHRASE.test(words));
}

/**
 * The whole title of a comment thread ("Comments", "3 Responses", "Reader comments (12)", "Leave a Reply", "Comments
 * are closed", and the same in the other languages of the sets); not a singular "Comment", which heads opinion
 * sections of articles.
 */
const COMMENT_THREAD_TITLE = new RegExp(
  [
    "^(?:(?:reader|user|visitor)s?'?\\s+)?(?:comments|responses|replies)(?:\\s*\\(?\\d+\\)?)?$",
    "^(?:\\d+|one|no)\\s+(?:comments?|responses?|replies)$",
    "^(?:leave|post|add|write|submit)\\s+(?:a|an|your)\\s+(?:comment|reply|response)$",
    "^comments are closed$",
    // German, French, Polish, Spanish, Italian: "Kommentare (3)", "Keine Kommentare", "Kommentar schreiben",
    // "Schreibe einen Kommentar", "Commentaires", "Laisser un commentaire", "Komentarze", "Dodaj komentarz".
    "^(?:kommentare|commentaires|komentarze|comentarios|commenti)(?:\\s*\\(?\\d+\\)?)?$",
    "^(?:\\d+|keine|ein|aucun|brak)\\s+(?:kommentare?|commentaires?|komentarzy|komentarz)$",
    "^(?:kommentare?\\s+(?:schreiben|verfassen|hinzufügen)|kommentieren|(?:schreibe|hinterlasse|verfasse)\\s+(?:einen|deinen)\\s+kommentar|(?:laisser|ajouter|écrire)\\s+un\\s+commentaire|dodaj\\s+komentarz|(?:deja|dejar|añadir)\\s+un\\s+comentario|lascia\\s+un\\s+commento)$",
  ].join("|"),
  "iu",
);

/**
 * Whether a heading's text is nothing but a comment thread's title. Any short text with a comment word ("Comment",
 * "No comment") took an article's opinion section, and all after it, for the thread (dragnet R179: 0.51 -> 0.99).
 */
export function isCommentThreadTitle(text: string): boolean {
  return COMMENT_THREAD_TITLE.test(text.replace(/\s+/g, " ").replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, ""));
}

/** Most words of a name that calls its element a comment thread ("comments", "start-comments", "add-comment"). */
const MAX_COMMENT_NAME_WORDS = 4;

/** Whether a few words name a comment thread (an anchor's name or id, split at camelCase: "StartComments"). */
export function namesCommentThread(text: string): boolean {
  const words = text.trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "");
  return words !== "" && words.split("-").length <= MAX_COMMENT_NAME_WORDS && COMMENT_WORD.test(words);
}

/** A whole class/id token naming the content container; it keeps an element that also looks like chrome. */
const CONTENT_TOKEN =
  /^(article|post|entry|story|blogpost|blog[-_]post|hentry|h-entry|main|content|body|text)([-_]?(body|content|text|entry|main|inner|wrap|wrapper|container|area|single|full|detail|page|\d+))*$/i;

/** The class words of `element` that name it as the content container (CONTENT_TOKEN), if any. */
export function contentClassTokens(element: Element): string[] {
  const className = element.attribs.class;
  if (!className) return [];
  return className.split(/\s+/).filter((token) => token !== "" && CONTENT_TOKEN.test(token));
}

/** Readability's candidate weights, in spirit: names that suggest content or chrome. */
const POSITIVE_WEIGHT = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE_WEIGHT =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|foot|footer|footnote|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|tool|widget|byline|author|dateline|social|nav|menu/i;

/** The words of NEGATIVE_WEIGHT that name comments. */
const COMMENT_WEIGHT_WORDS = /comment|com-/gi;

/**
 * +25 / −25 per signal of class and id, as content candidates are weighed. `commentsWeigh` false: words of comment
 * threads weigh nothing (the try that keeps comment threads, for a page whose text is all discussion).
 */
export function weighNames(element: Element, commentsWeigh = true): number {
  let weight = 0;
  const className = element.attribs.class?.replace(SHOWN_HIDDEN_TOKEN, "$1");
  if (className) {
    if (NEGATIVE_WEIGHT.test(commentsWeigh ? className : className.replace(COMMENT_WEIGHT_WORDS, " "))) weight -= 25;
    if (POSITIVE_WEIGHT.test(className)) weight += 25;
  }
  const id = element.attribs.id;
  if (id) {
    if (NEGATIVE_WEIGHT.test(commentsWeigh ? id : id.replace(COMMENT_WEIGHT_WORDS, " "))) weight -= 25;
    if (POSITIVE_WEIGHT.test(id)) weight += 25;
  }
  return weight;
}

/** Words and phrases of a list of other stories (related, popular, recommended), in class/id tokens as CHROME_WORD reads them. */
const OTHER_STORIES =
  /(^|[-_])(related|relatedposts|recommended|recommendations|popular|mostpopular|trending|outbrain|taboola|zergnet|yarpp|most[-_](read|viewed|popular|shared|emailed|commented)|also[-_](read|like)|more[-_]stories|you[-_]may[-_]like)(?=$|[-_\d])/i;

/** Whether an element's class or id names it a list of other stories ("most-popular", "relatedArticles"), not a part of an article. */
export function namesOtherStories(element: Element): boolean {
  const names = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`.replace(/([a-z])([A-Z])/g, "$1-$2");
  return names.split(/\s+/).some((token) => token !== "" && OTHER_STORIES.test(token));
}

/** What an element's attributes say (flags below); 0 for most elements. */
export const NEVER_CONTENT = 1;
export const CHROME_NAMED = 2;
export const CONTENT_NAMED = 4;
/** With CHROME_NAMED: only layout words name it chrome (see LAYOUT_WORD). */
export const LAYOUT_NAMED = 8;
/** With CHROME_NAMED: a comment thread's words name it (see COMMENT_WORD). */
export const COMMENT_NAMED = 16;

const HIDDEN_STYLE = /(display\s*:\s*none|visibility\s*:\s*hidden)/i;
const CONTENT_ITEMPROP = /articleBody|text|reviewBody|mainEntity/i;

/** Class names of elements that stylesheets hide (CSS is not loaded, so the name is the signal). */
const HIDDEN_CLASS = /(^|\s)(hidden|hide|invisible|d-none|display-none|is-hidden|sr-only|visually-hidden|screen-reader-text|offscreen)(?=$|\s)/i;

const JS_HOOK = /^js[-_]/i;

function classifyNames(rawNames: string): number {
  if (HIDDEN_CLASS.test(rawNames)) return NEVER_CONTENT;
  const names = rawNames.replace(SHOWN_HIDDEN_TOKEN, "$1");
  let chrome = false;
  let comment = false;
  let layout = false;
  // camelCase words count as separate words (relatedArticles, commentList).
  for (const token of names.replace(/([a-z])([A-Z])/g, "$1-$2").split(/\s+/)) {
    // A "js-" class is a script's hook, not a description: a forum's posts sit in "js-replyNewMessageContainer".
    if (token === "" || JS_HOOK.test(token)) continue;
    if (CONTENT_TOKEN.test(token)) return CONTENT_NAMED;
    if (!comment && COMMENT_WORD.test(token)) comment = true;
    else if (!chrome && (CHROME_WORD.test(token) || CHROME_PHRASE.test(token))) chrome = true;
    else if (!layout && LAYOUT_WORD.test(token)) layout = true;
  }
  if (comment) return CHROME_NAMED | COMMENT_NAMED;
  return chrome ? CHROME_NAMED : layout ? CHROME_NAMED | LAYOUT_NAMED : 0;
}

/**
 * What a page's class and id words say, remembered: a page repeats the same few class lists on
 * most of its elements, and both the pass before parsing and detection ask about each element.
 */
const namesSeen = new Map<string, number>();
/**
 * Entries kept before the memory starts over. 10,000 held 6-8 MiB more per extraction thread after
 * its idle collection (111 against 117 MiB, scripts/bench/extraction-thread-memory.ts); 2,000 holds
 * no measurable amount.
 */
const NAMES_REMEMBERED = 2_000;

function classifyClassAndId(names: string): number {
  const seen = namesSeen.get(names);
  if (seen !== undefined) return seen;
  const flags = COOKIE_BANNER.test(names) ? NEVER_CONTENT : classifyNames(names);
  if (namesSeen.size >= NAMES_REMEMBERED) namesSeen.clear();
  // A copy as the key: a slice of the page would keep the whole page's source alive in the map.
  namesSeen.set(copyString(names), flags);
  return flags;
}

/** A string that shares no storage with `value`. */
function copyString(value: string): string {
  return ` ${value}`.slice(1);
}

/** Tags never dropped for a chrome-like class or id: they hold everything, or quote text in it (an embedded tweet is a "twitter-tweet" blockquote). */
export const NAMES_IGNORED_TAGS = new Set(["body", "html", "main", "blockquote"]);

/**
 * Whether a try that reads names drops an element of these flags unseen: chrome by name, unless it is a
 * tag that holds everything, or only layout words name it and it sits inside a container named as
 * content (`inContent`: an article, or an element other than body and html named as content).
 */
export function isDroppedByName(flags: number, tag: string, inContent: boolean): boolean {
  if ((flags & CHROME_NAMED) === 0 || NAMES_IGNORED_TAGS.has(tag)) return false;
  return !(inContent && (flags & LAYOUT_NAMED) !== 0);
}

/** Whether the try that ignores names still drops an element of these flags unseen: a comment thread. */
export function isCommentThread(flags: number, tag: string): boolean {
  return (flags & COMMENT_NAMED) !== 0 && !NAMES_IGNORED_TAGS.has(tag);
}

/** Whether an element makes its descendants `inContent` (see isDroppedByName), from its tag and flags. */
export function marksContent(tag: string, flags: number): boolean {
  return tag === "article" || ((flags & CONTENT_NAMED) !== 0 && !NAMES_IGNORED_TAGS.has(tag));
}

/** Whether the element makes its descendants `inContent`: marksContent of its own tag and attributes. */
export function isContentBlock(element: Element): boolean {
  return marksContent(element.name, classifyElement(element));
}

/**
 * One pass over the attributes: never content (hidden, a chrome role, a cookie banner), chrome by
 * class or id (unless also named as the content container), named as the content container.
 */
export function classifyElement(element: Element): number {
  const attribs = element.attribs;
  let names = "";
  let flags = 0;
  // In the order the page wrote them: the class and id words are read joined in that order.
  for (const name in attribs) {
    const value = attribs[name] as string;
    switch (name) {
      case "class":
      case "id":
        names = names === "" ? value : `${names} ${value}`;
        break;
      case "hidden":
        return NEVER_CONTENT;
      case "aria-hidden":
        if (value === "true") return NEVER_CONTENT;
        break;
      case "style":
        if (HIDDEN_STYLE.test(value)) return NEVER_CONTENT;
        break;
      case "role": {
        const role = value.trim().toLowerCase();
        if (CHROME_ROLES.has(role)) return NEVER_CONTENT;
        // A strip of tab labels, unless the panels sit inside it too (an accordion of questions and answers).
        if (role === "tablist" && selectFirstIn(element, '[role="tabpanel"]') === null) return NEVER_CONTENT;
        break;
      }
      case "itemprop":
        if (CONTENT_ITEMPROP.test(value)) flags |= CONTENT_NAMED;
        break;
    }
  }
  return withNames(names, flags);
}

/** The flags of the other attributes joined with what the class and id words say. */
function withNames(names: string, flags: number): number {
  if (names === "") return flags;
  const named = classifyClassAndId(names);
  if (named === NEVER_CONTENT) return NEVER_CONTENT;
  return named & CHROME_NAMED && flags & CONTENT_NAMED ? flags : flags | named;
}

/** Least words of text (runs of whitespace as one) a block named as content needs to be a post that comments answer. */
const MIN_COMMENTED_CHARS = 50;

/**
 * Whether the page names a block as content (an <article>, a class, id or itemprop) that holds text and no comment
 * thread, outside any comment thread and page chrome: then the threads are comments on it, never the content. A page without one (a
 * live ticker whose entries are "live-match-comments", a forum whose first post is a "comment") is all discussion.
 */
export function namesContentBesideComments(root: Element): boolean {
  return scanForContent(root).found;
}

function scanForContent(element: Element): { found: boolean; comments: boolean; chars: number } {
  let comments = false;
  let chars = 0;
  for (const child of element.children) {
    if (isText(child)) {
      chars += child.data.replace(/\s+/g, " ").trim().length;
      continue;
    }
    if (!isTag(child) || NEVER_CONTENT_TAGS.has(child.name)) continue;
    const flags = classifyElement(child);
    // Page chrome by tag or name (a sidebar's "widget_text text-6") is no post either.
    if (flags & NEVER_CONTENT || CHROME_TAGS.has(child.name)) continue;
    if (isCommentThread(flags, child.name)) {
      comments = true;
      continue;
    }
    if (flags & CHROME_NAMED) continue;
    const inner = scanForContent(child);
    if (inner.found) return inner;
    comments ||= inner.comments;
    chars += inner.chars;
    if (!inner.comments && inner.chars >= MIN_COMMENTED_CHARS && marksContent(child.name, flags)) return { found: true, comments, chars };
  }
  return { found: false, comments, chars };
}
