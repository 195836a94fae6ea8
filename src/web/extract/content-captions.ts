/**
 * @module web/extract/content-captions — pictures' captions inside the content: one marked so by HTML (a <figcaption>),
 * or one named so (an element whose class or id says caption, beside a picture: WordPress's `p.wp-caption-text`, a
 * gallery's `div.caption`). A caption describes the picture, not the article: the human truths of trafilatura's sets,
 * of the ir-research news pages and of L3S leave most of them out (scripts/bench/caption-truths.ts prints how each
 * source's truth treats them), and the issue counts them as boilerplate. Portal's and Dragnet's truths keep the named
 * captions of their 2012-2013 pages, which state their article by microdata or not at all, so content-clean.ts
 * removes a named caption only where the page states its article in JSON-LD; Readability's output keeps captions.
 * A page whose captions hold a quarter of its prose or more tells its story in them (a gallery, a listicle of
 * pictures): there they stay.
 */
import type { Element } from "./dom.ts";
import { elementChildrenOf, parentElementOf } from "./dom.ts";

/** What the rule reads of an element: its characters of text and its pictures (content-score.ts Info has both). */
export interface CaptionCounts {
  chars: number;
  images: number;
}
/** The counts of the content's elements (content-score.ts Walk.infos). */
export interface CountsOf {
  get(element: Element): CaptionCounts | undefined;
}

/** How a caption is known: marked so by HTML (a <figcaption>), or named so by its class or id. */
export type CaptionMark = "marked" | "named";

/** Longest element taken for a caption named so (a figcaption is one whatever its length). */
const MAX_NAMED_CAPTION_CHARS = 400;
/** Class or id words of a caption ("caption", "wp-caption-text", "image__caption", "photoCaption"), split at - and _ and camelCase. */
const CAPTION_NAME = /(^|[\s_-])caption(?:[\s_-]text)?(?=$|[\s_-])/i;
/** Most text a caption's parent's parent holds beside the caption's own for a picture in it to be the caption's. */
const MAX_FRAME_CHARS = 200;
/** Share of the content's prose at which its captions are its story, not notes on its pictures. */
const MAX_CAPTIONS_SHARE = 0.25;

function namedCaption(element: Element): boolean {
  const names = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`.replace(/([a-z])([A-Z])/g, "$1-$2");
  return CAPTION_NAME.test(names);
}

/**
 * Whether a picture lies beside an element of `chars` characters holding none: inside its parent, or inside its
 * parent's parent when that holds little text but the caption's (a frame of picture and caption, not the article
 * around them). Read from the counts, so a page of thousands of captions is not searched again for each.
 */
function besidePicture(element: Element, chars: number, countsOf: CountsOf): boolean {
  const parent = parentElementOf(element);
  const around = parent && countsOf.get(parent);
  if (!parent || !around) return false;
  if (around.images > 0) return true;
  const frame = parentElementOf(parent);
  const framed = frame && countsOf.get(frame);
  return framed !== null && framed !== undefined && framed.images > 0 && framed.chars <= chars + MAX_FRAME_CHARS;
}

/**
 * How `element` is a picture's caption: marked so (a <figcaption>), or named so (a short element named a caption,
 * holding no picture itself, beside one); undefined when it is none, or when it lies inside a caption
 * (`insideCaption`: the outermost caption is the one).
 */
export function pictureCaption(element: Element, countsOf: CountsOf, insideCaption: boolean): CaptionMark | undefined {
  if (insideCaption) return undefined;
  if (element.name === "figcaption") return "marked";
  if (!namedCaption(element)) return undefined;
  const own = countsOf.get(element);
  if (!own || own.chars > MAX_NAMED_CAPTION_CHARS || own.images > 0) return undefined;
  return besidePicture(element, own.chars, countsOf) ? "named" : undefined;
}

/**
 * Whether the pictures' captions of `root` are few: together under a quarter of its prose (`prose` characters).
 * One walk of the content, outermost captions only.
 */
export function captionsAreFew(root: Element, prose: number, countsOf: CountsOf): boolean {
  let chars = 0;
  const stack: Element[] = elementChildrenOf(root);
  while (stack.length > 0) {
    const element = stack.pop() as Element;
    if (pictureCaption(element, countsOf, false)) chars += countsOf.get(element)?.chars ?? 0;
    // One at a time: a spread of a parent's hundred thousand children would overflow the call.
    else for (const child of elementChildrenOf(element)) stack.push(child);
  }
  return chars < MAX_CAPTIONS_SHARE * prose;
}
