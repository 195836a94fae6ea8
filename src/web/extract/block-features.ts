/**
 * @module web/extract/block-features — what the learned block filter (block-filter.ts) reads of each block of the
 * chosen content: the content's leaf blocks (a block element holding text and no block element that does), and for
 * each its numeric features (text, link density, punctuation, stop words, tag, place in the content, repetition on
 * the page, schema.org and title signals) and the class, id and itemprop words of it and its ancestors inside the
 * content. The same code feeds training (scripts/train-block-model.ts) and inference, so the model sees at run time
 * exactly what it was trained on.
 */
import { isTag, isText, parentElementOf, type AnyNode, type Element } from "./dom.ts";

/** Tags that make a block of their own (a leaf block is one of these holding no other one with text). */
const LEAF_BLOCK_TAGS = new Set([
  "address", "article", "aside", "blockquote", "caption", "center", "dd", "details", "div", "dl", "dt", "figcaption", "figure",
  "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main", "ol", "p", "pre", "section", "summary", "table", "td", "th", "ul",
]);

/** Tag groups of the one-hot features (anything else is "other"). */
const TAG_GROUPS: Record<string, string> = {
  p: "p", li: "li", h1: "h1", h2: "h2", h3: "h2", h4: "h4", h5: "h4", h6: "h4", div: "div", td: "td", th: "td",
  dd: "dd", dt: "dd", figcaption: "figcaption", caption: "figcaption", blockquote: "blockquote", pre: "pre",
};
const TAG_GROUP_NAMES = ["p", "li", "h1", "h2", "h4", "div", "td", "dd", "figcaption", "blockquote", "pre", "other"];

/** Ancestors (inside the content) whose presence is a feature. */
const ANCESTOR_GROUPS: Record<string, string> = {
  figure: "figure", aside: "chrome", header: "chrome", footer: "chrome", nav: "chrome", li: "list", ul: "list", ol: "list",
  table: "table", blockquote: "quote", a: "link", form: "form", address: "chrome",
};
const ANCESTOR_GROUP_NAMES = ["figure", "chrome", "list", "table", "quote", "link", "form"];

/**
 * Class/id name families (substrings of the block's and its ancestors' class, id and itemprop values inside the
 * content): a handful of fixed features in place of a vocabulary, so that what is learned is a family's weight
 * rather than one site's own names.
 */
const NAME_GROUPS: Record<string, RegExp> = {
  meta: /byline|author|dateline|date|time|posted|published|meta|info|source/,
  media: /caption|credit|photo|image|img|figure|media|gallery|video/,
  related: /related|teaser|promo|recommend|more|also|trending|popular|sidebar|widget|list|card|tags?\b|topic/,
  social: /share|social|newsletter|subscribe|signup|follow|facebook|twitter|email|print/,
  comment: /comment|disqus|reply|respond|discussion/,
  body: /article|body|content|story|entry|post|text|main/,
};
const NAME_GROUP_NAMES = Object.keys(NAME_GROUPS);
const MEDIA_NAMES = NAME_GROUPS.media as RegExp;

/**
 * Frequent function words of the languages of the public sets (English, German, French, Spanish, Italian, Dutch,
 * Portuguese): prose is dense in them, bylines, credits, teasers' headlines and widget labels are not.
 */
const STOP_WORDS = new Set(
  (
    "the of and to a in is that for it as was with be by on not he this are or his from at which but have an they you were " +
    "her she there been one all we their has would when if will more no out so said what up its about into than them can only " +
    "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach " +
    "wird bei einer um am sind noch wie einem über einen so zum war haben nur oder aber vor zur bis mehr durch man sein wurde " +
    "le la les de des et un une du en est que qui dans pour pas sur au par ce il elle sont avec plus se ne ou mais son " +
    "el los las del y que en un una por con para es al lo como más pero sus le ha su " +
    "il di che è per non una sono della con si da al nel gli anche " +
    "het een van en de dat niet zijn op te voor met ook maar om als bij er " +
    "o os um uma do da em no na que com não se por mais para"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+/gu;
const SENTENCE_END = /[.!?…:;"”»)\]'’]\s*$/u;
const YEAR = /\b(19|20)\d\d\b/;
const PUNCTUATION = /[^\p{L}\p{N}\s]/gu;
const DIGIT = /\p{N}/gu;
const UPPER_INITIAL = /^\p{Lu}/u;

/**
 * Short lines worded as the boilerplate kinds modern news pages carry (English, German, French, Spanish, Italian):
 * a photo credit, a byline, a publication/update line, a share/newsletter/print widget, a comment count or prompt,
 * a "read more"/"related" lead-in. Each applies only to a line under its length limit (characters).
 */
const PHRASES: [name: string, limit: number, pattern: RegExp][] = [
  ["credit", 200, /^(photo|foto|image|bild|credit|source|quelle|crédit|fuente|photograph)s?( by)?\s*:|^(photo|photograph|foto) by\s+\p{Lu}|getty images|\b(ap|afp|reuters|dpa|epa) ?photo|\/ ?(ap|afp|reuters|dpa|epa|getty)\b|©/iu],
  ["byline", 120, /^([Bb]y|BY|[Vv]on|[Pp]ar|[Pp]or|[Dd]i|[Dd]oor|[Tt]ext:?|[Ww]ritten by)\s+\p{Lu}/u],
  ["dateline", 100, /^(published|updated|posted|last updated|first published|veröffentlicht|aktualisiert|stand:|publié|mis à jour|publicado|actualizado|pubblicato|aggiornato)\b/iu],
  ["share", 120, /^(share|tweet|e-?mail|print|subscribe|sign up|sign-up|follow us|newsletter|teilen|abonnieren|partager|compartir|condividi)\b|\b(sign up for|subscribe to) (our |the )?newsletter/iu],
  ["comments", 80, /^\d+\s+(comments?|kommentare?|commentaires?|comentarios?|commenti|replies|responses)\b|\b(comments?|kommentare?)\s*\(\d+\)|^(leave a (comment|reply)|add (a )?comment|post a comment|kommentar schreiben)/iu],
  ["more", 150, /^(read more|related|see also|more from|more on|recommended|you may also like|mehr zum thema|lesen sie auch|weiterlesen|auch interessant|à lire aussi|lire aussi|leer más|leggi anche)\b/iu],
];

/** Whether a block's line is worded as one of PHRASES under its length limit (a phrase_ feature of it is 1). */
export function wordedAsBoilerplate(block: ContentBlock): boolean {
  return PHRASES.some(([, limit, pattern]) => block.chars <= limit && pattern.test(block.text));
}

/**
 * Whether a block of the content `root` is placed as a caption, as its features say (blockKind's "caption"): a
 * figcaption or table caption, inside a figure, or named like media (the block's or an ancestor's class, id or itemprop).
 */
export function placedAsCaption(block: ContentBlock, root: Element): boolean {
  if (TAG_GROUPS[block.element.name] === "figcaption") return true;
  for (let node: Element | null = block.element; node && node !== root; node = parentElementOf(node)) {
    if (node !== block.element && ANCESTOR_GROUPS[node.name] === "figure") return true;
    if (MEDIA_NAMES.test(`${node.attribs.class ?? ""} ${node.attribs.id ?? ""} ${node.attribs.itemprop ?? ""}`.toLowerCase())) return true;
  }
  return false;
}

/** Names of the numeric features, in the order blockFeatures writes them (the model file states the same list). */
export const NUMERIC_FEATURES: readonly string[] = [
  "log_chars", "log_words", "link_density", "ends_sentence", "punctuation_ratio", "digit_ratio", "upper_initial_ratio",
  "stop_word_ratio", "mean_word_length", "has_year", "commas_per_word", "short", "very_short", "short_unpunctuated",
  "share_of_content", "position", "first", "last", "log_previous_chars", "log_next_chars", "previous_prose", "next_prose",
  "repeated_on_page", "repeated_in_content", "title_match", "log_depth", "images", "itemprop_body",
  ...TAG_GROUP_NAMES.map((name) => `tag_${name}`),
  ...ANCESTOR_GROUP_NAMES.map((name) => `in_${name}`),
  "before_prose", "after_prose", "edge_rank", "container_without_prose", "template_spread", "template_group",
  "sibling_items", "items_link_density", "items_log_chars", "outside_prose_cluster",
  ...NAME_GROUP_NAMES.map((name) => `named_${name}`),
  ...PHRASES.map(([name]) => `phrase_${name}`),
];

export interface ContentBlock {
  element: Element;
  /** Its text, whitespace collapsed. */
  text: string;
  chars: number;
  linkChars: number;
  images: number;
}

export interface BlockView {
  block: ContentBlock;
  numeric: Float64Array;
  /** Class, id and itemprop words of the block and its ancestors inside the content, each once. */
  words: string[];
}

/** Characters, link characters and images under a node. */
function countUnder(node: AnyNode, counts: { chars: number; linkChars: number; images: number }, inLink: boolean): void {
  if (isText(node)) {
    const length = node.data.length;
    counts.chars += length;
    if (inLink) counts.linkChars += length;
    return;
  }
  if (!isTag(node)) return;
  if (node.name === "img") counts.images++;
  const link = inLink || node.name === "a";
  for (const child of node.children) countUnder(child, counts, link);
}

function collapsedText(node: AnyNode, parts: string[]): void {
  if (isText(node)) parts.push(node.data);
  else if (isTag(node)) {
    const block = LEAF_BLOCK_TAGS.has(node.name) || node.name === "br";
    if (block) parts.push(" ");
    for (const child of node.children) collapsedText(child, parts);
    if (block) parts.push(" ");
  }
}

/** The leaf blocks of `root` in document order: block elements with text holding no block element with text. */
export function leafBlocks(root: Element): ContentBlock[] {
  const found: ContentBlock[] = [];
  const visit = (element: Element): boolean => {
    let holdsBlock = false;
    for (const child of element.children) if (isTag(child) && visit(child)) holdsBlock = true;
    if (holdsBlock) return true;
    if (!LEAF_BLOCK_TAGS.has(element.name) || element === root) return false;
    const parts: string[] = [];
    collapsedText(element, parts);
    const text = parts.join("").replace(/\s+/g, " ").trim();
    if (text === "") return false;
    const counts = { chars: 0, linkChars: 0, images: 0 };
    countUnder(element, counts, false);
    found.push({ element, text, chars: text.length, linkChars: Math.min(counts.linkChars, counts.chars), images: counts.images });
    return true;
  };
  visit(root);
  return found;
}

/** Class, id and itemprop words of an element (split at non-alphanumerics and camelCase, lower case, 3+ letters). */
export function nameWords(element: Element, into: Set<string>): void {
  const { class: className, id, itemprop } = element.attribs;
  for (const value of [className, id]) {
    if (!value) continue;
    for (const word of value.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/)) {
      if (word.length >= 3 && !/^\d+$/.test(word)) into.add(word);
    }
  }
  if (itemprop) for (const word of itemprop.toLowerCase().split(/\s+/)) if (word !== "") into.add(`itemprop:${word}`);
}

function logChars(chars: number): number {
  return Math.log1p(chars) / 8;
}

/** How often `needle` occurs in `haystack`, counting at most `max`. */
function occurrences(haystack: string, needle: string, max: number): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0 && count < max; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

export interface BlockPage {
  /** The page's whole body text, whitespace collapsed (for repetition). */
  bodyText: string;
  /** The page's <title>, lower case. */
  title: string;
}

/** The features of every leaf block of the chosen content `root`. */
export function blockViews(root: Element, page: BlockPage, blocks = leafBlocks(root)): BlockView[] {
  const total = blocks.reduce((sum, block) => sum + block.chars, 0) || 1;
  const textCounts = new Map<string, number>();
  for (const block of blocks) textCounts.set(block.text, (textCounts.get(block.text) ?? 0) + 1);
  const structure = contentStructure(root, blocks);
  const views: BlockView[] = [];
  let offset = 0;
  for (const [index, block] of blocks.entries()) {
    const text = block.text;
    const words = text.match(WORD) ?? [];
    const wordCount = words.length || 1;
    let stop = 0;
    let upper = 0;
    let wordChars = 0;
    for (const word of words) {
      if (STOP_WORDS.has(word.toLowerCase())) stop++;
      if (UPPER_INITIAL.test(word)) upper++;
      wordChars += word.length;
    }
    const chars = block.chars;
    const endsSentence = SENTENCE_END.test(text) ? 1 : 0;
    const previous = blocks[index - 1];
    const next = blocks[index + 1];
    const prose = (other: ContentBlock | undefined) => (other && other.chars >= 150 && SENTENCE_END.test(other.text) ? 1 : 0);
    const lower = text.toLowerCase();
    const names = new Set<string>();
    const ancestors = new Set<string>();
    let depth = 0;
    let itempropBody = 0;
    let nameText = "";
    for (let node: Element | null = block.element; node && node !== root; node = parentElementOf(node)) {
      nameWords(node, names);
      nameText += ` ${node.attribs.class ?? ""} ${node.attribs.id ?? ""} ${node.attribs.itemprop ?? ""}`;
      if (node !== block.element) {
        const group = ANCESTOR_GROUPS[node.name];
        if (group) ancestors.add(group);
      }
      if (/articlebody|text/i.test(node.attribs.itemprop ?? "")) itempropBody = 1;
      depth++;
    }
    const numeric = new Float64Array(NUMERIC_FEATURES.length);
    let at = 0;
    const put = (value: number) => (numeric[at++] = value);
    put(logChars(chars));
    put(Math.log1p(words.length) / 6);
    put(chars > 0 ? block.linkChars / chars : 0);
    put(endsSentence);
    put(chars > 0 ? (text.match(PUNCTUATION)?.length ?? 0) / chars : 0);
    put(chars > 0 ? (text.match(DIGIT)?.length ?? 0) / chars : 0);
    put(upper / wordCount);
    put(stop / wordCount);
    put(Math.min(wordChars / wordCount, 15) / 10);
    put(YEAR.test(text) ? 1 : 0);
    put(Math.min((text.match(/,/g)?.length ?? 0) / wordCount, 1));
    put(chars < 80 ? 1 : 0);
    put(chars < 25 ? 1 : 0);
    put(chars < 80 && !endsSentence ? 1 : 0);
    put(chars / total);
    put(offset / total);
    put(index === 0 ? 1 : 0);
    put(index === blocks.length - 1 ? 1 : 0);
    put(previous ? logChars(previous.chars) : 0);
    put(next ? logChars(next.chars) : 0);
    put(prose(previous));
    put(prose(next));
    put(chars <= 300 && occurrences(page.bodyText, text, 2) >= 2 ? 1 : 0);
    put((textCounts.get(text) ?? 0) > 1 ? 1 : 0);
    put(page.title !== "" && chars >= 10 && (page.title.includes(lower) || lower.includes(page.title)) ? 1 : 0);
    put(Math.log1p(depth) / 3);
    put(Math.min(block.images, 3) / 3);
    put(itempropBody);
    const group = TAG_GROUPS[block.element.name] ?? "other";
    for (const name of TAG_GROUP_NAMES) put(name === group ? 1 : 0);
    for (const name of ANCESTOR_GROUP_NAMES) put(ancestors.has(name) ? 1 : 0);
    const { firstProse, lastProse } = structure;
    put(firstProse >= 0 && index < firstProse ? 1 : 0);
    put(firstProse >= 0 && index > lastProse ? 1 : 0);
    put(Math.min(index, blocks.length - 1 - index, 4) / 4);
    put(structure.containerWithoutProse[index] as number);
    put(structure.templateSpread[index] as number);
    put(structure.templateGroup[index] as number);
    const items = structure.items[index];
    put(items ? Math.log1p(items.count) / 3 : 0);
    put(items ? items.linkDensity : 0);
    put(items ? logChars(items.meanChars) : 0);
    put(structure.outsideCluster[index] as number);
    nameText = nameText.toLowerCase();
    for (const name of NAME_GROUP_NAMES) put((NAME_GROUPS[name] as RegExp).test(nameText) ? 1 : 0);
    for (const [, limit, pattern] of PHRASES) put(chars <= limit && pattern.test(text) ? 1 : 0);
    views.push({ block, numeric, words: [...names] });
    offset += chars;
  }
  return views;
}

/** A block's prose: long enough and ending a sentence. */
const isProse = (block: ContentBlock) => block.chars >= 150 && SENTENCE_END.test(block.text);

/** An element's template signature: its tag and first class word, digits dropped. */
function signatureOf(element: Element | null): string {
  if (!element) return "";
  const firstClass = (element.attribs.class ?? "").trim().split(/\s+/)[0]?.replace(/\d+/g, "") ?? "";
  return `${element.name}.${firstClass}`;
}

/**
 * How the blocks sit in the content: the first and last prose block; for each block whether its container (the
 * nearest ancestor holding another block) holds no prose but its own; and the template signal: blocks whose own,
 * parent's and grandparent's tag and class repeat under several different grandparents are items of a repeated
 * structure (teasers, related lists, cards), paragraphs of an article repeat under one.
 */
function contentStructure(root: Element, blocks: readonly ContentBlock[]) {
  const prose = blocks.map(isProse);
  const firstProse = prose.indexOf(true);
  const lastProse = prose.lastIndexOf(true);
  const blockCount = new Map<Element, number>();
  const proseCount = new Map<Element, number>();
  const chains = blocks.map((block) => {
    const chain: Element[] = [];
    for (let node = parentElementOf(block.element); node; node = parentElementOf(node)) {
      chain.push(node);
      if (node === root) break;
    }
    return chain;
  });
  for (const [i, chain] of chains.entries()) {
    for (const node of chain) {
      blockCount.set(node, (blockCount.get(node) ?? 0) + 1);
      if (prose[i]) proseCount.set(node, (proseCount.get(node) ?? 0) + 1);
    }
  }
  const containerWithoutProse = chains.map((chain, i) => {
    const container = chain.find((node) => (blockCount.get(node) ?? 0) >= 2) ?? root;
    return (proseCount.get(container) ?? 0) - (prose[i] ? 1 : 0) === 0 ? 1 : 0;
  });
  const groups = new Map<string, { size: number; grandparents: Set<Element | undefined> }>();
  const keys = blocks.map((block, i) => {
    const chain = chains[i] as Element[];
    const key = `${signatureOf(block.element)}<${signatureOf(chain[0] ?? null)}<${signatureOf(chain[1] ?? null)}`;
    const group = groups.get(key) ?? { size: 0, grandparents: new Set() };
    group.size++;
    group.grandparents.add(chain[1]);
    groups.set(key, group);
    return key;
  });
  const templateSpread = keys.map((key) => Math.min((groups.get(key)?.grandparents.size ?? 1) - 1, 4) / 4);
  const templateGroup = keys.map((key) => Math.log1p((groups.get(key)?.size ?? 1) - 1) / 3);
  const itemsOf = new Map<Element, SiblingItems | undefined>();
  const items = blocks.map((block, i) => {
    for (const node of [block.element, ...(chains[i] as Element[])]) {
      if (node === root) break;
      const parent = parentElementOf(node);
      if (!parent) break;
      const found = siblingItems(node, parent, itemsOf);
      if (found) return found;
    }
    return undefined;
  });
  // The page's own main column: the deepest element holding two thirds of the content's prose (the characters of its
  // prose blocks); a block outside it sits beside the article (a box, a list, a header zone).
  const proseChars = new Map<Element, number>();
  let totalProse = 0;
  for (const [i, chain] of chains.entries()) {
    if (!prose[i]) continue;
    const chars = (blocks[i] as ContentBlock).chars;
    totalProse += chars;
    for (const node of chain) proseChars.set(node, (proseChars.get(node) ?? 0) + chars);
  }
  const cluster = firstProse >= 0 ? (chains[firstProse] as Element[]).find((node) => (proseChars.get(node) ?? 0) >= (2 / 3) * totalProse) : undefined;
  const outsideCluster = chains.map((chain, i) => (cluster && cluster !== root && !prose[i] && !chain.includes(cluster) ? 1 : 0));
  return { firstProse, lastProse, containerWithoutProse, templateSpread, templateGroup, items, outsideCluster };
}

/** Sibling items a block belongs to: how many of its parent's children share its signature, their link density and mean length. */
interface SiblingItems {
  count: number;
  linkDensity: number;
  meanChars: number;
}

/** Fewest children of one parent sharing a signature to be a repeated structure (a list of teasers, links, cards). */
const MIN_SIBLING_ITEMS = 3;

/**
 * The repeated structure `node` is an item of: the children of `parent` sharing its tag and first class (a list of
 * teasers, cards, tags, links), when there are MIN_SIBLING_ITEMS of them or more; undefined otherwise. Cached per parent
 * and signature in `cache` (keyed by the node).
 */
function siblingItems(node: Element, parent: Element, cache: Map<Element, SiblingItems | undefined>): SiblingItems | undefined {
  if (cache.has(node)) return cache.get(node);
  const signature = signatureOf(node);
  const same = parent.children.filter((child): child is Element => isTag(child) && signatureOf(child) === signature);
  let found: SiblingItems | undefined;
  if (same.length >= MIN_SIBLING_ITEMS && node.name !== "p") {
    const counts = { chars: 0, linkChars: 0, images: 0 };
    for (const item of same) countUnder(item, counts, false);
    found = { count: same.length, linkDensity: counts.chars > 0 ? Math.min(counts.linkChars, counts.chars) / counts.chars : 0, meanChars: counts.chars / same.length };
  }
  for (const item of same) cache.set(item, found);
  return found;
}

/** The body's text with whitespace collapsed (blockViews' `bodyText`). */
export function collapsedBodyText(body: Element): string {
  const parts: string[] = [];
  collapsedText(body, parts);
  return parts.join("").replace(/\s+/g, " ");
}
