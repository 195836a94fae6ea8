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
  if (!selectors) return;
  if (selectors.length > MAX_IGNORE_SELECTORS) {
    throw new ApiError("SELECTOR_INVALID", { message: `ignore_selectors has ${selectors.length} selectors; at most ${MAX_IGNORE_SELECTORS}.` });
  }
  selectors.forEach((selector, index) => {
    const where = `ignore_selectors[${index}] ${JSON.stringify(selector.slice(0, MAX_SELECTOR_CHARS))}`;
    if (selector.trim() === "" || selector.length > MAX_SELECTOR_CHARS) {
      throw new ApiError("SELECTOR_INVALID", { message: `${where}: a selector has 1 to ${MAX_SELECTOR_CHARS} characters.` });
    }
    try {
      compile(selector);
    } catch (cause) {
      throw new ApiError("SELECTOR_INVALID", { message: `${where}: not a valid CSS selector (${(cause as Error).message}).`, cause });
    }
  });
}
