/**
 * @module web/extract/html-clean — cleaning by markup alone, for a subtree no walk has scored (a caller's
 * selector scope, or the fallbacks when detection found too little): scripts, styles, forms, hidden
 * elements and cookie banners always; navigation, page headers and footers, and asides when the subtree
 * is not already a detected article; comment threads named so. Cleaning of the detected content, judged
 * from the walk's counts, is content-clean.ts. Also makes the subtree's URLs absolute.
 */
import { attributeOf, closestNamed, removeNode, selectAllIn, selectFirstIn, textLengthOf, type Element } from "./dom.ts";
import { COOKIE_BANNER, classifyElement, isCommentThread } from "./content-signals.ts";

const NON_CONTENT = [
  "script", "style", "noscript", "template", "title", "meta", "link", "iframe", "object", "embed", "svg", "canvas", "form", "button", "select",
  "input", "textarea", "nav", "dialog", "[hidden]", '[aria-hidden="true"]', '[role="navigation"]', '[role="search"]',
  '[role="dialog"]', '[role="alertdialog"]',
].join(",");

const BOILERPLATE = [
  "aside", "menu", '[role="banner"]', '[role="contentinfo"]', '[role="complementary"]', '[role="menu"]', '[role="menubar"]',
].join(",");


function isCookieBanner(element: Element): boolean {
  const marker = `${element.attribs.id ?? ""} ${element.attribs.class ?? ""}`;
  return COOKIE_BANNER.test(marker);
}

function isInlineHidden(element: Element): boolean {
  const style = attributeOf(element, "style");
  return style !== null && /(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

function removeAll(root: Element, selector: string, keep?: (element: Element) => boolean): void {
  for (const element of selectAllIn(root, selector)) {
    // Removing a descendant of an already removed element is harmless: it is no longer under root.
    if (!(keep?.(element) ?? false)) removeNode(element);
  }
}

/** Removes non-content elements inside `root` (never `root` itself). */
export function removeNonContent(root: Element): void {
  removeAll(root, NON_CONTENT);
  for (const element of selectAllIn(root, "[style],[id],[class]")) {
    if (isInlineHidden(element) || isCookieBanner(element)) removeNode(element);
  }
}

/** Also removes page chrome: page headers/footers (not those of an article), asides, landmarks. */
export function removeBoilerplate(root: Element): void {
  removeNonContent(root);
  removeAll(root, BOILERPLATE);
  // Not an article's own, nor one holding the article and most of the text (an unclosed page <header> round the whole page).
  const half = textLengthOf(root) / 2;
  removeAll(root, "header,footer", (element) => closestNamed(element, "article") !== null || (selectFirstIn(element, "article,main") !== null && textLengthOf(element) >= half));
}

/** Removes comment threads (named so by class or id) that do not hold the page's h1: never main content. */
export function removeCommentThreads(root: Element): void {
  for (const element of selectAllIn(root, "[id],[class]")) {
    if (isCommentThread(classifyElement(element), element.name) && selectFirstIn(element, "h1") === null) removeNode(element);
  }
}

/** Rewrites href/src inside `root` to absolute URLs against `base` (Markdown keeps working out of context). */
export function absolutizeUrls(root: Element, base: string): void {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of selectAllIn(root, selector)) {
      const value = attributeOf(element, attribute);
      if (value === null) continue;
      try {
        element.attribs[attribute] = new URL(value, base).href;
      } catch {
        // leave unparseable URLs as written
      }
    }
  }
}
