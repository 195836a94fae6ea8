/**
 * @module web/filters/filtered-extract — HTML extraction with ignore_selectors applied first: what an
 * extraction thread and the in-thread extractor run.
 */
import { ApiError } from "../../errors.ts";
import { extractHtmlSync, type ExtractHtmlInput, type HtmlExtraction } from "../extract/extract.ts";
import { type IgnoredElements, removeIgnoredElements } from "./ignore-selectors.ts";

export type { IgnoredElements } from "./ignore-selectors.ts";

export interface FilteredExtractInput extends ExtractHtmlInput {
  /** CSS selectors whose elements are removed before extraction (checked beforehand by checkIgnoreSelectors). */
  ignoreSelectors?: readonly string[];
}

export interface FilteredExtraction extends HtmlExtraction {
  /** With ignoreSelectors: what they removed. */
  ignored?: IgnoredElements;
}

/** Extracts a page, without the elements ignoreSelectors match. Throws as extractHtmlSync does. */
export function extractFiltered(input: FilteredExtractInput): FilteredExtraction {
  const { ignoreSelectors, ...extractInput } = input;
  if (!ignoreSelectors || ignoreSelectors.length === 0) return extractHtmlSync(extractInput);
  let pruned: ReturnType<typeof removeIgnoredElements>;
  try {
    pruned = removeIgnoredElements(input.html, ignoreSelectors, input.selector !== undefined);
  } catch (error) {
    // The tree is at most 512 deep, but serializing and rendering recurse: a stack overflow is the page's fault.
    if (error instanceof RangeError) throw new ApiError("CONTENT_TOO_COMPLEX", { cause: error });
    throw error;
  }
  return { ...extractHtmlSync({ ...extractInput, html: pruned.html }), ignored: pruned.ignored };
}
