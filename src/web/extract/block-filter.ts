/**
 * @module web/extract/block-filter — the learned precision filter: after the rules have chosen and cleaned the
 * content, a logistic model (weights in a JSON file written by scripts/train-block-model.ts, trained offline on
 * public annotated pages; see docs/extraction-model.md) scores each leaf block of it (block-features.ts) and
 * removes those it is confident are boilerplate: captions and credits, bylines and datelines, teasers, widget
 * labels. A block holding a large share of the content is never removed, whatever the model says.
 */
import type { DomChanges } from "./content-changes.ts";
import { blockViews, collapsedBodyText, leafBlocks, NUMERIC_FEATURES, placedAsCaption, wordedAsBoilerplate, type BlockView, type ContentBlock } from "./block-features.ts";
import { passesPageGate, type ArticleDeclaration, type PageGate } from "./content-declared.ts";
import type { Element } from "./dom.ts";
import shippedModel from "./block-model.json";

export interface BlockModel {
  /** The numeric features the weights were trained on, in order (must equal NUMERIC_FEATURES). */
  numeric: string[];
  numericWeights: number[];
  /** Class/id/itemprop words with a weight (absent words weigh nothing). */
  words: Record<string, number>;
  bias: number;
  /** A block is removed when its probability of being boilerplate is at least this. */
  threshold: number;
  /** Blocks holding more than this share of the content's characters are never removed. */
  maxShare: number;
  /**
   * Which blocks the model may remove: "all", or "edges" (a veto only at the content's edges, before its first or
   * after its last prose block, in a container holding no prose but its own, or inside a figure, aside, header,
   * footer, nav or form: captions, credits, bylines, teasers, widgets; never a line among the article's
   * paragraphs); or "tail", the same without the lines before the first prose block (the headline, byline and
   * dateline zone, which the public sets' truths disagree on); or "after", only the lines after the last prose
   * block (related boxes, teasers, share and newsletter widgets, tags, comment counts); or "outside", only the blocks
   * outside the content's own main column (the deepest element holding two thirds of its prose). Absent: all.
   */
  gate?: "all" | "edges" | "tail" | "after" | "outside";
  /**
   * The kinds of block (blockKind) the model may remove at all, inside its gate: the kinds every public source's
   * truth calls boilerplate (scripts/block-model/categories.ts). Absent: every kind.
   */
  kinds?: BlockKind[];
  /**
   * The pages the model runs on (content-declared.ts PageGate): "declared", only those the publisher declares an
   * article (og:type article, article:published_time, a JSON-LD or microdata Article type); "stated", those declaring
   * it in schema.org terms or with a publication time; "json-ld", those stating it in JSON-LD; absent or "all": every page.
   */
  pages?: PageGate;
  /**
   * A second model, trained on its own with its own gate, kinds, pages and threshold, whose removals join this one's
   * (a block either removes is removed): a wider model for the pages a narrower gate names. It has no `also` itself.
   */
  also?: BlockModel;
}

/**
 * What judges the blocks: a model, or (for training) a recorder that sees every block and removes none.
 * `judge` returns whether to remove the block.
 */
export interface BlockJudge {
  /** Called before the blocks of one detection try (a page may be detected more than once). */
  start?(): void;
  judge(view: BlockView): boolean;
  /** The pages the judge runs on (BlockModel.pages); extraction checks the page (judgeForPage). Absent: all. */
  pages?: PageGate;
  /** A judge whose removals join this one's, on the pages its own gate names (BlockModel.also). */
  also?: BlockJudge;
  /**
   * A cheap test a block passes if the judge may remove it at all (a model of the phrase and caption kinds alone:
   * worded as a phrase, or placed as a caption): content with no such block is not scored. Absent: every block may be.
   */
  mayRemove?: (block: ContentBlock, root: Element) => boolean;
}

/** The model's probability that a block is boilerplate. */
export function boilerplateProbability(model: BlockModel, view: BlockView): number {
  let sum = model.bias;
  const weights = model.numericWeights;
  for (let i = 0; i < view.numeric.length; i++) sum += (weights[i] ?? 0) * (view.numeric[i] as number);
  for (const word of view.words) sum += model.words[word] ?? 0;
  return 1 / (1 + Math.exp(-sum));
}

const SHARE = NUMERIC_FEATURES.indexOf("share_of_content");
const BEFORE_PROSE = NUMERIC_FEATURES.indexOf("before_prose");
const AFTER_PROSE = NUMERIC_FEATURES.indexOf("after_prose");
const CONTAINER_WITHOUT_PROSE = NUMERIC_FEATURES.indexOf("container_without_prose");
const OUTSIDE_FLOW = ["in_figure", "in_chrome", "in_form"].map((name) => NUMERIC_FEATURES.indexOf(name));
const IN_FIGURE = NUMERIC_FEATURES.indexOf("in_figure");
const TAG_FIGCAPTION = NUMERIC_FEATURES.indexOf("tag_figcaption");
const NAMED_MEDIA = NUMERIC_FEATURES.indexOf("named_media");
const NAMED_COMMENT = NUMERIC_FEATURES.indexOf("named_comment");
const NAMED_SOCIAL = NUMERIC_FEATURES.indexOf("named_social");
const IN_FORM = NUMERIC_FEATURES.indexOf("in_form");
const NAMED_RELATED = NUMERIC_FEATURES.indexOf("named_related");
const TEMPLATE_SPREAD = NUMERIC_FEATURES.indexOf("template_spread");
const NAMED_META = NUMERIC_FEATURES.indexOf("named_meta");
const LINK_DENSITY = NUMERIC_FEATURES.indexOf("link_density");
const IN_CHROME = NUMERIC_FEATURES.indexOf("in_chrome");
const SIBLING_ITEMS = NUMERIC_FEATURES.indexOf("sibling_items");
const ITEMS_LINK_DENSITY = NUMERIC_FEATURES.indexOf("items_link_density");
const ITEMS_LOG_CHARS = NUMERIC_FEATURES.indexOf("items_log_chars");
const OUTSIDE_CLUSTER = NUMERIC_FEATURES.indexOf("outside_prose_cluster");
/** items_log_chars of items 150 characters long on average (block-features.ts logChars). */
const SHORT_ITEMS = Math.log1p(150) / 8;

const PHRASE_AT = NUMERIC_FEATURES.flatMap((name, i) => (name.startsWith("phrase_") ? [i] : []));

/**
 * The kinds of block the public sources' truths may treat differently (scripts/block-model/categories.ts prints
 * how each source's truth treats each), first match wins: a short line worded as boilerplate (a credit, byline,
 * publication line, share widget, comment count, "read more" lead-in: block-features.ts PHRASES), a caption or credit (in a figure, a figcaption, or named
 * like media), a comment line, a share/newsletter/form widget, a related or teaser item (named so, or an item of a
 * structure repeated under several parents), a byline/dateline/meta line (named so), an item of a list of three or more
 * siblings alike whose items are short (under 150 characters on average) and mostly links (a list of teasers, tags or
 * links, `repeated`), a link-dense line, a line
 * before the first prose block (the headline zone), one after the last (the tail), one in a container holding no
 * other prose (an island), one in an aside/header/footer/nav (chrome), and the rest (body).
 */
export const BLOCK_KINDS = ["phrase", "caption", "comment", "social", "related", "meta", "repeated", "link", "head", "tail", "island", "chrome", "body"] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/** The kind of a block, from its numeric features (BLOCK_KINDS). */
export function blockKind(numeric: Float64Array): BlockKind {
  const on = (i: number) => (numeric[i] as number) > 0;
  if (PHRASE_AT.some(on)) return "phrase";
  if (on(IN_FIGURE) || on(TAG_FIGCAPTION) || on(NAMED_MEDIA)) return "caption";
  if (on(NAMED_COMMENT)) return "comment";
  if (on(NAMED_SOCIAL) || on(IN_FORM)) return "social";
  if (on(NAMED_RELATED) || on(TEMPLATE_SPREAD)) return "related";
  if (on(NAMED_META)) return "meta";
  if (on(SIBLING_ITEMS) && (numeric[ITEMS_LINK_DENSITY] as number) >= 0.5 && (numeric[ITEMS_LOG_CHARS] as number) < SHORT_ITEMS) return "repeated";
  if ((numeric[LINK_DENSITY] as number) >= 0.5) return "link";
  if (numeric[BEFORE_PROSE] === 1) return "head";
  if (numeric[AFTER_PROSE] === 1) return "tail";
  if (numeric[CONTAINER_WITHOUT_PROSE] === 1) return "island";
  if (on(IN_CHROME)) return "chrome";
  return "body";
}

/** Whether `model` may remove the block at all: under its share limit, and inside its gate. */
export function removable(model: BlockModel, numeric: Float64Array): boolean {
  if ((numeric[SHARE] as number) > model.maxShare) return false;
  if (model.kinds && !model.kinds.includes(blockKind(numeric))) return false;
  const gate = model.gate ?? "all";
  if (gate === "all") return true;
  if (gate === "after") return numeric[AFTER_PROSE] === 1;
  if (gate === "outside") return numeric[OUTSIDE_CLUSTER] === 1;
  if (numeric[BEFORE_PROSE] === 1) return gate === "edges";
  return numeric[AFTER_PROSE] === 1 || numeric[CONTAINER_WITHOUT_PROSE] === 1 || OUTSIDE_FLOW.some((at) => numeric[at] === 1);
}

/** A judge removing what `model` may remove and scores at or above its threshold. */
export function modelJudge(model: BlockModel): BlockJudge {
  if (model.numeric.join(",") !== NUMERIC_FEATURES.join(",")) throw new Error("block model: its features are not this code's");
  if (model.also?.also) throw new Error("block model: a second model cannot have one of its own");
  const judge = (view: BlockView) => removable(model, view.numeric) && boilerplateProbability(model, view) >= model.threshold;
  return { judge, pages: model.pages ?? "all", ...(model.kinds ? kindTest(model.kinds) : {}), ...(model.also ? { also: modelJudge(model.also) } : {}) };
}

/**
 * The judge for a page declaring itself in the ways `declarations` returns (content-declared.ts, asked only when a
 * gate needs them): `judge` and its `also` judges whose page gates the page passes, joined; undefined when none runs.
 */
export function judgeForPage(judge: BlockJudge, declarations: () => readonly ArticleDeclaration[]): BlockJudge | undefined {
  let ways: readonly ArticleDeclaration[] | undefined;
  const runs = (part: BlockJudge) => !part.pages || part.pages === "all" || passesPageGate(part.pages, (ways ??= declarations()));
  const parts = (judge.also ? [judge, judge.also] : [judge]).filter(runs);
  if (parts.length <= 1) return parts[0];
  const tests = parts.map((part) => part.mayRemove);
  return {
    start: () => {
      for (const part of parts) part.start?.();
    },
    judge: (view) => parts.some((part) => part.judge(view)),
    ...(tests.every((test) => test !== undefined) ? { mayRemove: (block: ContentBlock, root: Element) => tests.some((test) => test(block, root)) } : {}),
  };
}

/** Kinds a block's text and place tell without its features (blockKind puts phrases first, then captions). */
const CHEAP_KINDS: Partial<Record<BlockKind, (block: ContentBlock, root: Element) => boolean>> = {
  phrase: (block) => wordedAsBoilerplate(block),
  caption: placedAsCaption,
};

/** BlockJudge.mayRemove for a model removing only `kinds`, when every one of them is told cheaply. */
function kindTest(kinds: readonly BlockKind[]): Pick<BlockJudge, "mayRemove"> {
  const tests = kinds.map((kind) => CHEAP_KINDS[kind]);
  if (tests.some((test) => test === undefined)) return {};
  return { mayRemove: (block, root) => tests.some((test) => test?.(block, root) === true) };
}

/** Removes the leaf blocks of `root` that `judge` names boilerplate (`body`: the page's body, for repetition). */
export function filterBlocks(root: Element, body: Element, title: string, judge: BlockJudge, changes: DomChanges): void {
  judge.start?.();
  const blocks = leafBlocks(root);
  if (judge.mayRemove && !blocks.some((block) => judge.mayRemove?.(block, root) === true)) return;
  const views = blockViews(root, { bodyText: collapsedBodyText(body), title: title.replace(/\s+/g, " ").trim().toLowerCase() }, blocks);
  for (const view of views) if (judge.judge(view)) changes.remove(view.block.element);
}

/** The model trained on every public source (scripts/train-block-model.ts writes it). */
export const SHIPPED_BLOCK_MODEL: BlockModel = shippedModel as BlockModel;

/**
 * Whether extraction runs the shipped model by default: on since the seventh try, whose choice no human-truth source
 * held out, nor the unseen big9 and chaos-unread, scores lower with (scripts/bench/extraction-loso.ts;
 * docs/extraction-model.md). The shipped model removes phrase lines and captions on pages stating an article, and
 * (its `also`) blocks of any kind on pages stating it in JSON-LD.
 */
export const BLOCK_FILTER_ON = true;

/** The shipped model's judge when the filter is on by default, else none. */
export const DEFAULT_BLOCK_JUDGE: BlockJudge | undefined = BLOCK_FILTER_ON ? modelJudge(SHIPPED_BLOCK_MODEL) : undefined;
