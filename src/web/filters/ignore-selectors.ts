/**
 * @module web/filters/ignore-selectors — the request checks of web/changes' ignore_selectors. The page's elements
 * that match them are removed by the extractor on the page it parsed (extract.ts, `ignoreSelectors`), as the
 * browser-shaped tree content-parse.ts builds, so `body > div.ad` or `table > tbody > tr` select as in a browser;
 * matching is budgeted like every caller's selector (extract/caller-selectors.ts, MAX_SELECTOR_STEPS).
 */
import { compile } from "css-select";
import { ApiError } from "../../errors.ts";

export { MAX_SELECTOR_STEPS } from "../extract/caller-selectors.ts";

export const MAX_IGNORE_SELECTORS = 20;
export const MAX_SELECTOR_CHARS = 300;

/** Throws ApiError SELECTOR_INVALID naming the first selector css-select cannot compile, or the limits broken. */
export function checkIgnoreSelectors(selectors: readonly string[] | undefined): void {
  checkSelectorList(selectors, "ignore_selectors", MAX_IGNORE_SELECTORS);
}

/** The same checks for any list of a caller's selectors, named `${field}[i]` (web/screenshot's hide). */
export function checkSelectorList(selectors: readonly string[] | undefined, field: string, maxSelectors: number): void {
  if (!selectors) return;
  if (selectors.length > maxSelectors) {
    throw new ApiError("SELECTOR_INVALID", { message: `${field} has ${selectors.length} selectors; at most ${maxSelectors}.` });
  }
  selectors.forEach((selector, index) => checkSelector(selector, `${field}[${index}]`));
}

/**
 * Throws ApiError SELECTOR_INVALID when a caller's selector is empty, over MAX_SELECTOR_CHARS or not one
 * css-select compiles (`where` names it, e.g. "selector" or "hide[2]"). A selector that passes may still be
 * refused by a browser, whose syntax differs at the edges; the browser's own refusal is SELECTOR_INVALID too.
 */
export function checkSelector(selector: string, where: string): void {
  const named = `${where} ${JSON.stringify(selector.slice(0, MAX_SELECTOR_CHARS))}`;
  if (selector.trim() === "" || selector.length > MAX_SELECTOR_CHARS) {
    throw new ApiError("SELECTOR_INVALID", { message: `${named}: a selector has 1 to ${MAX_SELECTOR_CHARS} characters.` });
  }
  try {
    compile(selector);
  } catch (cause) {
    throw new ApiError("SELECTOR_INVALID", { message: `${named}: not a valid CSS selector (${(cause as Error).message}).`, cause });
  }
}
