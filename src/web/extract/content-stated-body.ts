/**
 * @module web/extract/content-stated-body — trims the chosen content to the article the publisher states in its
 * JSON-LD `articleBody`: when that text agrees with the content (most of it is found there) and holds most of the
 * content's prose (so it is neither a summary nor cut by a paywall), the content's leaf blocks whose words it lacks
 * are captions, credits, bylines, datelines, teasers and widget labels the rules left inside the article's
 * container, and go. What every public truth keeps although articleBody leaves it out stays: headings, the title,
 * the standfirst, prose among the article's paragraphs, lists of plain text (a review's pros and cons), tables and code.
 */
import { leafBlocks, type ContentBlock } from "./block-features.ts";
import type { Element } from "./dom.ts";

/** Shingles (word n-grams) compared; blocks shorter than this are looked for as a whole phrase. */
const SHINGLE = 3;
/**
 * Blocks shorter than this (words) are also looked for with the spaces taken out of both texts: publishers that
 * strip their markup glue a subhead to the paragraphs around it ("pandilleros.Pidió más juecesLas audiencias").
 */
const GLUED_WORDS = 8;
/** Share of the stated text's shingles that must be found in the content: the stated article is this content's. */
const MIN_STATED_FOUND = 0.8;
/** Share of the content's prose (characters of its prose blocks) the stated text must hold: not a summary, not cut. */
const MIN_PROSE_HELD = 0.8;
/** Stated texts shorter than this (words) are not read as the article. */
const MIN_STATED_WORDS = 80;
/** Share of a block's shingles found in the stated text for the block to be the article's. */
const BLOCK_HELD = 0.5;
/** A block this long (characters) ending a sentence is prose. */
const PROSE_CHARS = 150;
/** A block before the article's first stated block, of this many words and ending a sentence, is its standfirst. */
const LEAD_WORDS = 8;
/** A block holding more than this share of the content's characters is never removed. */
const MAX_REMOVED_SHARE = 0.15;
/** Most of the content removed in all: more than this, and the stated text is not this content's article. */
const MAX_REMOVED_TOTAL = 0.35;

const WORD = /[\p{L}\p{N}]+/gu;
const SENTENCE_END = /[.!?…"”»]\s*$/u;
const HEADING = /^h[1-6]$/;

/** Whether extraction trims to the stated article by default (docs/extraction-model.md, fifth try). */
export const STATED_BODY_TRIM_ON = true;

/** Lower-case words of a text (quotes, dashes and punctuation fall away; letters compatibility-composed). */
function wordsOf(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(WORD) ?? [];
}

function shinglesOf(words: readonly string[]): string[] {
  const shingles: string[] = [];
  for (let i = 0; i + SHINGLE <= words.length; i++) shingles.push(words.slice(i, i + SHINGLE).join(" "));
  return shingles;
}

/** A text blocks are looked up in: its shingles, and its words joined by single spaces (padded) and by none. */
interface StatedText {
  shingles: Set<string>;
  phrase: string;
  glued: string;
}

function statedTextOf(text: string, minWords: number): StatedText | undefined {
  const words = wordsOf(text);
  if (words.length < minWords) return undefined;
  return { shingles: new Set(shinglesOf(words)), phrase: ` ${words.join(" ")} `, glued: words.join("") };
}

/** Whether the text holds the block's words. */
function holds(stated: StatedText, words: readonly string[]): boolean {
  if (words.length === 0) return true;
  if (words.length < GLUED_WORDS && stated.glued.includes(words.join(""))) return true;
  if (words.length < SHINGLE) return stated.phrase.includes(` ${words.join(" ")} `);
  const shingles = shinglesOf(words);
  let found = 0;
  for (const shingle of shingles) if (stated.shingles.has(shingle)) found++;
  return found >= BLOCK_HELD * shingles.length;
}

function isProse(block: ContentBlock): boolean {
  return block.chars >= PROSE_CHARS && SENTENCE_END.test(block.text);
}

const FIGURE = new Set(["figure", "figcaption"]);
/** Containers whose text stated bodies often leave out although it is the article's: data tables, code. */
const KEPT_CONTAINERS = new Set(["table", "pre"]);

/** Whether the element, or an ancestor of it inside `root`, is named one of `names`. */
function within(element: Element, root: Element, names: ReadonlySet<string>): boolean {
  for (let node: Element | null = element; node && node !== root; node = node.parent as Element | null) {
    if (names.has(node.name)) return true;
  }
  return false;
}

/** Of the page's stated articles, the one whose shingles the content holds most of, when it holds enough of them. */
function agreeingArticle(candidates: readonly StatedText[], contentShingles: ReadonlySet<string>): StatedText | undefined {
  let best: StatedText | undefined;
  let bestShare = 0;
  for (const stated of candidates) {
    let found = 0;
    for (const shingle of stated.shingles) if (contentShingles.has(shingle)) found++;
    const share = found / stated.shingles.size;
    if (share > bestShare) [best, bestShare] = [stated, share];
  }
  return bestShare >= MIN_STATED_FOUND ? best : undefined;
}

/**
 * The leaf blocks of `root` that the stated article lacks (`statedBodies`: the page's articleBody texts, plain),
 * when one of those texts is this content's article in full; none when none is (too short, mostly not in the
 * content, or missing much of the content's prose: a summary, or a paywall's cut). `lead`: what the page states
 * about the article besides its body (its description and title): a block it holds is kept.
 * Kept as well: headings, a plain-text list item, a table's cells and preformatted text, prose before the article's last stated block (a verdict box, a
 * pull quote written out), a sentence before its first (the standfirst, outside a figure), and any block over
 * MAX_REMOVED_SHARE of the content.
 */
export function statedBodyExtras(root: Element, statedBodies: readonly string[], lead: string): Element[] {
  const candidates = statedBodies.map((body) => statedTextOf(body, MIN_STATED_WORDS)).filter((stated) => stated !== undefined);
  if (candidates.length === 0) return [];
  const blocks = leafBlocks(root).map((block) => ({ block, words: wordsOf(block.text) }));
  const stated = agreeingArticle(candidates, new Set(blocks.flatMap(({ words }) => shinglesOf(words))));
  if (!stated) return [];
  const leadText = statedTextOf(lead, 1);
  const held = blocks.map(({ words }) => holds(stated, words));
  const firstHeld = held.indexOf(true);
  const lastHeld = held.lastIndexOf(true);
  const total = blocks.reduce((sum, { block }) => sum + block.chars, 0);
  let prose = 0;
  let proseHeld = 0;
  let removedChars = 0;
  const removed: Element[] = [];
  for (const [i, { block, words }] of blocks.entries()) {
    if (isProse(block)) {
      prose += block.chars;
      if (held[i]) proseHeld += block.chars;
    }
    if (held[i] || (leadText && holds(leadText, words))) continue;
    if (HEADING.test(block.element.name) || block.chars > MAX_REMOVED_SHARE * total) continue;
    if (block.element.name === "li" && block.linkChars < 0.5 * block.chars) continue;
    if (within(block.element, root, KEPT_CONTAINERS)) continue;
    if (i < lastHeld && isProse(block)) continue;
    if (i < firstHeld && words.length >= LEAD_WORDS && SENTENCE_END.test(block.text) && !within(block.element, root, FIGURE)) continue;
    removed.push(block.element);
    removedChars += block.chars;
  }
  if (prose === 0 || proseHeld < MIN_PROSE_HELD * prose || removedChars > MAX_REMOVED_TOTAL * total) return [];
  return removed;
}
