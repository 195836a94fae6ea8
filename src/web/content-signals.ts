/**
 * @module web/content-signals — what an element's tag, class, id and role say about whether it is
 * page content: elements never content (scripts, forms, navigation), page chrome named by its
 * class or id (comments, sharing, related links, sidebars, ads, cookie banners), and the weight a
 * class or id adds to a content candidate's score. General patterns of how sites name things,
 * not rules for particular sites.
 */
import type { Element } from "happy-dom";

/**
 * Tags whose subtree is never main content. FORM is not among them (some frameworks wrap the whole
 * page in one); a form inside the chosen content is removed.
 */
export const NEVER_CONTENT_TAGS = new Set([
  "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TITLE", "META", "LINK", "IFRAME", "OBJECT", "EMBED", "SVG", "svg", "CANVAS",
  "BUTTON", "SELECT", "INPUT", "TEXTAREA", "NAV", "DIALOG", "MENU", "HEAD", "AUDIO", "VIDEO", "MAP", "LABEL",
]);

/** Page chrome when not inside an article. */
export const CHROME_TAGS = new Set(["ASIDE", "HEADER", "FOOTER"]);

const CHROME_ROLES = new Set([
  "navigation", "search", "dialog", "alertdialog", "banner", "contentinfo", "complementary", "menu", "menubar", "toolbar", "tablist",
]);

/** Cookie and consent banners (CMPs: OneTrust, Cookiebot, Quantcast, Didomi, generic). */
const COOKIE_BANNER =
  /cookie[-_]?(banner|notice|consent|bar|policy|popup|law|message|warning|wall)|consent[-_]?(banner|manager|popup|bar|modal)|gdpr|onetrust|cookiebot|didomi|qc-cmp|cmp[-_]?(container|banner)|cc[-_](window|banner)|truste/i;

/**
 * Words (in class/id tokens split at - and _) of page chrome: comment threads, sharing and social
 * widgets, related/popular lists, sidebars, menus, breadcrumbs, pagination, ads and sponsored
 * blocks, sign-up boxes.
 */
const CHROME_WORD =
  /(^|[-_])(comments?|commentlist|commentary[-_]?list|disqus|respond|repl(y|ies)|talkback|share|shares|sharing|sharedaddy|social|sociable|addthis|sharethis|shareaholic|facebook|twitter|tweet|related|relatedposts|recommended|recommendations|popular|mostpopular|trending|sidebar|widgets?|menu|navbar|nav|navigation|breadcrumbs?|pagination|pager|paging|tags|tagcloud|categories|ads|advert|advertisement|adsense|sponsor|sponsored|promo|banner|newsletter|subscribe|signup|login|footer|masthead|skip|rss|authorbio|outbrain|taboola|zergnet|yarpp|hidden|popup|overlay)(?=$|[-_\d])/i;
const CHROME_PHRASE = /(^|[-_])(most[-_](read|viewed|popular|shared|emailed|commented)|also[-_](read|like)|more[-_](stories|news|from|on)|read[-_]more|side[-_]bar|sign[-_]up|author[-_](bio|box|info)|about[-_]the[-_]author|tag[-_](list|cloud)|prev[-_]next|you[-_]may[-_]like)(?=$|[-_\d])/i;

/** A whole class/id token naming the content container; it keeps an element that also looks like chrome. */
const CONTENT_TOKEN =
  /^(article|post|entry|story|blogpost|blog[-_]post|hentry|h-entry|main|content|body|text)([-_]?(body|content|text|entry|main|inner|wrap|wrapper|container|area|single|full|detail|page|\d+))*$/i;

/** Readability's candidate weights, in spirit: names that suggest content or chrome. */
const POSITIVE_WEIGHT = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE_WEIGHT =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|foot|footer|footnote|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|tool|widget|byline|author|dateline|social|nav|menu/i;

function namesOf(element: Element): string {
  const id = element.id;
  const className = element.getAttribute("class");
  return className ? (id ? `${id} ${className}` : className) : id;
}

/** +25 / −25 per signal of class and id, as content candidates are weighed. */
export function weighNames(element: Element): number {
  let weight = 0;
  const className = element.getAttribute("class");
  if (className) {
    if (NEGATIVE_WEIGHT.test(className)) weight -= 25;
    if (POSITIVE_WEIGHT.test(className)) weight += 25;
  }
  const id = element.id;
  if (id) {
    if (NEGATIVE_WEIGHT.test(id)) weight -= 25;
    if (POSITIVE_WEIGHT.test(id)) weight += 25;
  }
  return weight;
}

function isHidden(element: Element): boolean {
  if (element.hasAttribute("hidden") || element.getAttribute("aria-hidden") === "true") return true;
  const style = element.getAttribute("style");
  return style !== null && /(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/** Never content, whatever the page: hidden, a chrome role, a cookie banner. */
export function isNeverContent(element: Element): boolean {
  if (isHidden(element)) return true;
  const role = element.getAttribute("role");
  if (role !== null && CHROME_ROLES.has(role.trim().toLowerCase())) return true;
  const names = namesOf(element);
  return names !== "" && COOKIE_BANNER.test(names);
}

/** Named (class, id or itemprop) as the content container. */
export function isNamedContent(element: Element): boolean {
  const itemprop = element.getAttribute("itemprop");
  if (itemprop !== null && /articleBody|text|reviewBody|mainEntity/i.test(itemprop)) return true;
  const names = namesOf(element);
  if (names === "") return false;
  for (const token of names.replace(/([a-z])([A-Z])/g, "$1-$2").split(/\s+/)) if (token !== "" && CONTENT_TOKEN.test(token)) return true;
  return false;
}

/** Chrome by its class or id (and not also named as the content container). */
export function isChromeByName(element: Element): boolean {
  const names = namesOf(element);
  if (names === "") return false;
  let chrome = false;
  // camelCase words count as separate words (relatedArticles, commentList).
  for (const token of names.replace(/([a-z])([A-Z])/g, "$1-$2").split(/\s+/)) {
    if (token === "") continue;
    if (CONTENT_TOKEN.test(token)) return false;
    if (!chrome && (CHROME_WORD.test(token) || CHROME_PHRASE.test(token))) chrome = true;
  }
  return chrome;
}
