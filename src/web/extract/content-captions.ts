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
import { closestNamed, parentElementOf, selectAllIn, selectFirstIn, textOf } from "./dom.ts";

/** Longest element taken for a caption named so (a figcaption is one whatever its length). */
const MAX_NAMED_CAPTION_CHARS = 400;
/** Class or id words of a caption ("caption", "wp-caption-text", "image__caption", "photoCaption"), split at - and _ and camelCase. */
const CAPTION_NAME = /(^|[\s_-])caption(?:[\s_-]text)?(?=$|[\s_-])/i;
const PICTURE = "img,picture,video,svg";
/** Share of the content's prose at which its captions are its story, not notes on its pictures. */
const MAX_CAPTIONS_SHARE = 0.25;

function namedCaption(element: Element): boolean {
  const names = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`.replace(/([a-z])([A-Z])/g, "$1-$2");
  return CAPTION_NAME.test(names);
}

/** Most text a caption's parent's parent holds beside the caption's own for a picture in it to be the caption's. */
const MAX_FRAME_CHARS = 200;

/**
 * Whether a picture lies beside `element` (`chars`: its characters of text), not inside itself: inside its parent, or
 * inside its parent's parent when that holds little text but the caption's (a frame of picture and caption, not the
 * article around them).
 */
function besidePicture(element: Element, chars: number): boolean {
  if (selectFirstIn(element, PICTURE)) return false;
  const parent = parentElementOf(element);
  if (parent === null) return false;
  if (selectFirstIn(parent, PICTURE)) return true;
  const frame = parentElementOf(parent);
  return frame !== null && textOf(frame).length <= chars + MAX_FRAME_CHARS && selectFirstIn(frame, PICTURE) !== null;
}

function insideCaption(element: Element): boolean {
  const parent = parentElementOf(element);
  return parent !== null && closestNamed(parent, "figcaption") !== null;
}

/** How a caption is known: marked so by HTML (a <figcaption>), or named so by its class or id. */
export type CaptionMark = "marked" | "named";

/**
 * How `element` (`chars`: its characters of text) is a picture's caption: marked so (the outermost <figcaption>), or
 * named so (a short element named a caption, holding no picture itself, beside one); undefined when it is none.
 */
export function pictureCaption(element: Element, chars: number): CaptionMark | undefined {
  if (element.name === "figcaption") return insideCaption(element) ? undefined : "marked";
  return chars <= MAX_NAMED_CAPTION_CHARS && namedCaption(element) && besidePicture(element, chars) ? "named" : undefined;
}

/**
 * Whether the pictures' captions of `root` are few: together under a quarter of its prose (`prose` characters).
 * `charsOf`: the characters of text of an element of the content.
 */
export function captionsAreFew(root: Element, prose: number, charsOf: (element: Element) => number | undefined): boolean {
  let chars = 0;
  const counted = new Set<Element>();
  const withinCounted = (element: Element) => {
    for (let at = parentElementOf(element); at !== null && at !== root; at = parentElementOf(at)) if (counted.has(at)) return true;
    return false;
  };
  for (const element of selectAllIn(root, "figcaption,[class*=aption],[id*=aption]")) {
    const own = charsOf(element);
    if (own === undefined || !pictureCaption(element, own) || withinCounted(element)) continue;
    counted.add(element);
    chars += own;
  }
  return chars < MAX_CAPTIONS_SHARE * prose;
}
