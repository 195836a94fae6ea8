/**
 * Training the learned block filter (src/web/extract/block-filter.ts): each page of the public sources is extracted
 * with the filter recording every leaf block of its content (block-features.ts) and removing none, so the blocks and
 * features are exactly what the filter sees at run time; each block is labelled content or boilerplate against the
 * page's truth; a weighted logistic regression is fitted (full-batch Adam, L2) and the removal threshold chosen on
 * the same training blocks. Used by scripts/train-block-model.ts (all sources) and
 * scripts/bench/extraction-loso.ts (all sources but one, in turn).
 */
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { NUMERIC_FEATURES, type BlockView } from "../../src/web/extract/block-features.ts";
import { boilerplateProbability, type BlockJudge, type BlockModel } from "../../src/web/extract/block-filter.ts";
import type { SourcePage, Truth } from "../bench/extraction-sources.ts";

export interface BlockRecord {
  source: string;
  page: string;
  numeric: Float64Array;
  words: string[];
  /** 1: boilerplate, 0: content. */
  label: 0 | 1;
  /** Its share of the content (the filter never removes a block above the model's maxShare). */
  share: number;
  /** Training weight: the block's share of its page's shingles, each source weighing the same in all. */
  weight: number;
}

const TOKEN = /[\p{L}\p{N}_]+/gu;
const tokens = (text: string): string[] => text.match(TOKEN) ?? [];

/** The label of a block against a text truth: content when its words run in the truth, or half its 4-grams are there. */
function textLabel(truthPadded: string, truthShingles: Set<string>, text: string): 0 | 1 | undefined {
  const words = tokens(text);
  if (words.length === 0) return undefined;
  if (truthPadded.includes(` ${words.join(" ")} `)) return 0;
  if (words.length < 4) return 1;
  let held = 0;
  for (let i = 0; i + 4 <= words.length; i++) if (truthShingles.has(words.slice(i, i + 4).join(" "))) held++;
  return held >= 0.5 * (words.length - 3) ? 0 : 1;
}

/** The label of a block against snippets: content when it holds (or is most of) a "with" snippet, boilerplate for a "without" one. */
function snippetLabel(truth: { with: string[]; without: string[] }, text: string): 0 | 1 | undefined {
  const matches = (snippets: string[]) =>
    snippets.some((snippet) => {
      const s = snippet.replace(/\s+/g, " ").trim();
      return s !== "" && (text.includes(s) || (text.length >= 15 && s.includes(text)));
    });
  const content = matches(truth.with);
  const boilerplate = matches(truth.without);
  return content === boilerplate ? undefined : content ? 0 : 1;
}

function labeller(truth: Truth): (text: string) => 0 | 1 | undefined {
  if (truth.kind === "snippets") return (text) => snippetLabel(truth, text);
  const words = tokens(truth.text);
  const padded = ` ${words.join(" ")} `;
  const shingles = new Set<string>();
  for (let i = 0; i + 4 <= words.length; i++) shingles.add(words.slice(i, i + 4).join(" "));
  return (text) => textLabel(padded, shingles, text);
}

/**
 * Extracts `page` with a recording judge: returns the text (today's extraction: the recorder removes nothing) and the
 * labelled blocks of the content that made it (none when the text came from a fallback rather than detection).
 */
export function recordPage(page: SourcePage): { text: string; records: BlockRecord[] } {
  let views: BlockView[] = [];
  const recorder: BlockJudge = {
    start: () => (views = []),
    judge: (view) => (views.push(view), false),
  };
  let text = "";
  let warnings: string[] = [];
  try {
    const result = extractHtmlSync({ html: page.html, url: page.url, markdown: false, blockJudge: recorder });
    text = result.text;
    warnings = result.warnings;
  } catch {
    return { text: "", records: [] };
  }
  if (warnings.length > 0) return { text, records: [] };
  const label = labeller(page.truth);
  const total = views.reduce((sum, view) => sum + tokens(view.block.text).length + 3, 0) || 1;
  const shareAt = NUMERIC_FEATURES.indexOf("share_of_content");
  const records: BlockRecord[] = [];
  for (const view of views) {
    const value = label(view.block.text);
    if (value === undefined) continue;
    records.push({
      source: page.source,
      page: page.id,
      numeric: view.numeric,
      words: view.words,
      label: value,
      share: view.numeric[shareAt] as number,
      weight: (tokens(view.block.text).length + 3) / total,
    });
  }
  return { text, records };
}

export interface TrainOptions {
  /** A class/id word enters the model when it appears on this many pages of at least two sources. */
  minPages?: number;
  iterations?: number;
  l2?: number;
  maxShare?: number;
}

/** Fits the model on `records` (weights rescaled so each source weighs the same) and picks its threshold. */
export function trainBlockModel(records: readonly BlockRecord[], options: TrainOptions = {}): BlockModel {
  const minPages = options.minPages ?? 10;
  const iterations = options.iterations ?? 300;
  const l2 = options.l2 ?? 1e-4;
  const maxShare = options.maxShare ?? 0.25;

  // Vocabulary: words seen on enough pages of two sources or more (one site's own words do not generalise).
  const pagesOf = new Map<string, Set<string>>();
  const sourcesOf = new Map<string, Set<string>>();
  for (const record of records) {
    for (const word of record.words) {
      if (!pagesOf.has(word)) pagesOf.set(word, new Set()), sourcesOf.set(word, new Set());
      pagesOf.get(word)?.add(record.page);
      sourcesOf.get(word)?.add(record.source);
    }
  }
  const vocabulary = [...pagesOf.keys()].filter((word) => (pagesOf.get(word)?.size ?? 0) >= minPages && (sourcesOf.get(word)?.size ?? 0) >= 2).sort();
  const wordIndex = new Map(vocabulary.map((word, i) => [word, i]));

  // Each source's blocks weigh 1 in all.
  const sourceTotals = new Map<string, number>();
  for (const record of records) sourceTotals.set(record.source, (sourceTotals.get(record.source) ?? 0) + record.weight);
  const weights = records.map((record) => record.weight / (sourceTotals.get(record.source) as number) / sourceTotals.size);
  const wordsOf = records.map((record) => record.words.map((word) => wordIndex.get(word)).filter((i): i is number => i !== undefined));

  const numericCount = NUMERIC_FEATURES.length;
  const size = numericCount + vocabulary.length + 1;
  const theta = new Float64Array(size);
  const m = new Float64Array(size);
  const v = new Float64Array(size);
  const gradient = new Float64Array(size);
  const rate = 0.05;
  for (let step = 1; step <= iterations; step++) {
    gradient.fill(0);
    for (let r = 0; r < records.length; r++) {
      const record = records[r] as BlockRecord;
      const words = wordsOf[r] as number[];
      let z = theta[size - 1] as number;
      for (let i = 0; i < numericCount; i++) z += (theta[i] as number) * (record.numeric[i] as number);
      for (const w of words) z += theta[numericCount + w] as number;
      const error = ((1 / (1 + Math.exp(-z))) - record.label) * (weights[r] as number);
      for (let i = 0; i < numericCount; i++) gradient[i] = (gradient[i] as number) + error * (record.numeric[i] as number);
      for (const w of words) gradient[numericCount + w] = (gradient[numericCount + w] as number) + error;
      gradient[size - 1] = (gradient[size - 1] as number) + error;
    }
    for (let i = 0; i < size; i++) {
      const g = (gradient[i] as number) + (i < size - 1 ? l2 * (theta[i] as number) : 0);
      m[i] = 0.9 * (m[i] as number) + 0.1 * g;
      v[i] = 0.999 * (v[i] as number) + 0.001 * g * g;
      const mHat = (m[i] as number) / (1 - 0.9 ** step);
      const vHat = (v[i] as number) / (1 - 0.999 ** step);
      theta[i] = (theta[i] as number) - (rate * mHat) / (Math.sqrt(vHat) + 1e-8);
    }
  }

  const round = (value: number) => Math.round(value * 1e4) / 1e4;
  const words: Record<string, number> = {};
  for (const [word, i] of wordIndex) {
    const weight = round(theta[numericCount + i] as number);
    if (weight !== 0) words[word] = weight;
  }
  const model: BlockModel = {
    numeric: [...NUMERIC_FEATURES],
    numericWeights: [...theta.subarray(0, numericCount)].map(round),
    words,
    bias: round(theta[size - 1] as number),
    threshold: 1.01,
    maxShare,
  };
  model.threshold = chooseThreshold(model, records, weights);
  return model;
}

/**
 * The threshold that removes the most boilerplate weight net of the content weight it removes, on the training
 * blocks; above 1 (nothing removed) when no threshold gains.
 */
function chooseThreshold(model: BlockModel, records: readonly BlockRecord[], weights: readonly number[]): number {
  const scored = records
    .map((record, r) => ({ p: record.share <= model.maxShare ? boilerplateProbability(model, { numeric: record.numeric, words: record.words } as BlockView) : 0, gain: (record.label ? 1 : -1) * (weights[r] as number) }))
    .sort((a, b) => b.p - a.p);
  let best = 1.01;
  let bestGain = 0;
  let gain = 0;
  let at = 0;
  for (let threshold = 0.99; threshold >= 0.5; threshold -= 0.01) {
    while (at < scored.length && (scored[at]?.p as number) >= threshold) gain += (scored[at++] as { gain: number }).gain;
    if (gain > bestGain) (bestGain = gain), (best = Math.round(threshold * 100) / 100);
  }
  return best;
}
