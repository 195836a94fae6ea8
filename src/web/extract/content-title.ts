/**
 * @module web/extract/content-title — the heading that holds the page's title: the first h1-h3 whose text
 * is part of the page's <title> ("A Chair Made of Paper" in "A Chair Made of Paper - Core77"). Where the
 * article is, when names and scores point elsewhere: a site-name h1 over a post, a copyright note or a
 * browser notice crowned by its scores.
 */
import { selectAllIn, textOf, type Element } from "./dom.ts";

/** Shortest heading text taken as matching the page's <title> (a shorter one matches any title by chance). */
export const MIN_TITLE_HEADING_CHARS = 10;

/** Whether a heading's text (on one line) is the page's title or part of it. */
export function holdsPageTitle(headingText: string, pageTitle: string): boolean {
  return pageTitle !== "" && headingText.length >= MIN_TITLE_HEADING_CHARS && pageTitle.includes(headingText);
}

/**
 * Of `headings` (h1-h3 elements in document order), the one holding the most of the page's title (the first
 * of equals), if any: a site-name h1 ("copyranter") is part of the title too, but less of it than the post's
 * heading ("copyranter: The top 6 posts of the week").
 */
export function titleHeadingAmong(headings: Iterable<Element>, pageTitle: string): Element | undefined {
  if (pageTitle.length < MIN_TITLE_HEADING_CHARS) return undefined;
  let best: Element | undefined;
  let bestLength = 0;
  for (const heading of headings) {
    const text = textOf(heading).replace(/\s+/g, " ").trim();
    if (text.length > bestLength && holdsPageTitle(text, pageTitle)) {
      best = heading;
      bestLength = text.length;
    }
  }
  return best;
}

/** The first h1-h3 inside `root` that holds the page's title, if any. */
export function findTitleHeading(root: Element, pageTitle: string): Element | undefined {
  if (pageTitle.length < MIN_TITLE_HEADING_CHARS) return undefined;
  return titleHeadingAmong(selectAllIn(root, "h1,h2,h3"), pageTitle);
}

/** What separates a <title>'s parts ("Post title | Site", "Site: Post title", "Post – Section – Site"). */
const TITLE_SEPARATOR = /\s+[|\-\u2013\u2014\u00b7\u00bb:]+\s+|:\s+/;

/**
 * Whether a heading names only the site: it is part of a <title> of several parts and does not hold the
 * longest part, the page's own title ("Core77" in "How to Film a Car Chase on the Cheap - Core77").
 */
export function namesTheSiteOnly(headingText: string, pageTitle: string): boolean {
  if (headingText === "" || !pageTitle.includes(headingText)) return false;
  const parts = pageTitle.split(TITLE_SEPARATOR).map((part) => part.trim()).filter((part) => part !== "");
  if (parts.length < 2) return false;
  const longest = parts.reduce((a, b) => (b.length > a.length ? b : a));
  return !headingText.includes(longest);
}

/**
 * The page's headline: the h1 holding the page's title, else the h2 or h3 holding it, else the first h1. A site's logo
 * or section name is often an h1 above the article's ("SoCal Sports 4 You", "NFL", an empty one around a logo image),
 * over an article titled in an h2 ("h2.article-title").
 */
export function headlineOf(body: Element, pageTitle: string): Element | undefined {
  const h1s = selectAllIn(body, "h1");
  return titleHeadingAmong(h1s, pageTitle) ?? titleHeadingAmong(selectAllIn(body, "h2,h3"), pageTitle) ?? h1s[0];
}
