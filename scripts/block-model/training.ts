/**
 * Training the learned block filter (src/web/extract/block-filter.ts): each page of the public sources is extracted
 * with the filter recording every leaf block of its content (block-features.ts) and removing none, so the blocks and
 * features are exactly what the filter sees at run time; each block is labelled content or boilerplate against the
 * page's truth; a weighted logistic regression is fitted (full-batch Adam, L2) and the removal threshold chosen on
 * the same training blocks. Used by scripts/train-block-model.ts (all sources) and
 * scripts/bench/extraction-loso.ts (all sources but one, in turn).
 */
import { extractHtmlSync } from "../../src/web/extract/extract.ts";
import { articleDeclarations, passesPageGate, type ArticleDeclaration, type PageGate } from "../../src/web/extract/content-declared.ts";
import { cutUnreadMarkup, parsePage } from "../../src/web/extract/content-parse.ts";
import { readJsonLd } from "../../src/web/extract/content-structured.ts";
import { NUMERIC_FEATURES, type BlockView } from "../../src/web/extract/block-features.ts";
import { blockKind, boilerplateProbability, removable, type BlockJudge, type BlockKind, type BlockModel } from "../../src/web/extract/block-filter.ts";
import { metricsFrom, snippetCounts, snippetMetrics, type SnippetCounts, type SourcePage, type TpFpFn, type Truth } from "../bench/extraction-sources.ts";

type Metrics = { f1: number; precision: number; recall: number };

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

/** A block of a recorded page: its features, label (undefined: the truth does not say) and training weight. */
export interface RecordedBlock {
  numeric: Float64Array;
  words: string[];
  label: 0 | 1 | undefined;
  share: number;
  /** The block's share of its page's tokens (each source is rescaled to weigh the same in training). */
  weight: number;
  /** Its token positions in the page's text, [start, end), or undefined when not found there. */
  span: [number, number] | undefined;
  /** Its text, whitespace collapsed (for snippet pages: which snippets it holds). */
  text: string;
}

/** A page extracted with the recorder: today's text, its blocks, and what the F1 proxy needs. */
export interface RecordedPage {
  page: SourcePage;
  text: string;
  blocks: RecordedBlock[];
  /** How the publisher declares the page an article (content-declared.ts; BlockModel.pages). */
  declared: ArticleDeclaration[];
  /** Text truth: the truth's shingle counts, the text's shingle at each token and their counts, and its raw tp, fp, fn. */
  truthShingles?: Map<string, number>;
  tokens?: string[];
  shingleKeys?: string[];
  predicted?: Map<string, number>;
  counts?: [number, number, number];
}

/** The token positions of each block in `text`'s tokens, found in order. */
function blockSpans(textTokens: readonly string[], blocks: readonly { text: string }[]): ([number, number] | undefined)[] {
  let cursor = 0;
  return blocks.map((block) => {
    const words = tokens(block.text);
    if (words.length === 0) return undefined;
    for (let i = cursor; i + words.length <= textTokens.length; i++) {
      let same = true;
      for (let j = 0; j < words.length && same; j++) same = textTokens[i + j] === words[j];
      if (same) {
        cursor = i + words.length;
        return [i, i + words.length];
      }
    }
    return undefined;
  });
}

/** The shingle (token 4-gram, shorter for a text under 4 tokens) starting at each token, as the shared scorer makes them. */
function shingleKeys(words: readonly string[]): string[] {
  const keys: string[] = [];
  const last = Math.max(1, words.length - 3);
  for (let i = 0; i < last && i < words.length; i++) keys.push(words.slice(i, i + 4).join("\u0000"));
  return keys;
}

function countsOf(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** The text's shingles and its raw tp, fp, fn against a truth's. */
function textProxy(text: string[], truth: Map<string, number>): Pick<RecordedPage, "tokens" | "shingleKeys" | "predicted" | "counts" | "truthShingles"> {
  const keys = shingleKeys(text);
  const predicted = countsOf(keys);
  let tp = 0, fp = 0, fn = 0;
  for (const [key, count] of truth) {
    const p = predicted.get(key) ?? 0;
    tp += Math.min(count, p);
    fn += Math.max(0, count - p);
    fp += Math.max(0, p - count);
  }
  for (const [key, p] of predicted) if (!truth.has(key)) fp += p;
  return { tokens: text, shingleKeys: keys, predicted, counts: [tp, fp, fn], truthShingles: truth };
}

/**
 * Extracts `page` with a recording judge: today's text (the recorder removes nothing) and the blocks of the content
 * that made it (none when the text came from a fallback rather than detection).
 */
export function recordPage(page: SourcePage): RecordedPage {
  let views: BlockView[] = [];
  const recorder: BlockJudge = {
    start: () => (views = []),
    judge: (view) => (views.push(view), false),
  };
  let text = "";
  let warnings: string[] = [];
  const declared = articleDeclarations(parsePage(cutUnreadMarkup(page.html)).head, readJsonLd(page.html), page.html);
  try {
    const result = extractHtmlSync({ html: page.html, url: page.url, markdown: false, blockJudge: recorder });
    text = result.text;
    warnings = result.warnings;
  } catch {
    return { page, text: "", blocks: [], declared };
  }
  if (warnings.length > 0) views = [];
  const label = labeller(page.truth);
  const textTokens = tokens(text);
  const spans = blockSpans(textTokens, views.map((view) => view.block));
  const total = views.reduce((sum, view) => sum + tokens(view.block.text).length + 3, 0) || 1;
  const shareAt = NUMERIC_FEATURES.indexOf("share_of_content");
  const blocks = views.map((view, i) => ({
    numeric: view.numeric,
    words: view.words,
    label: label(view.block.text),
    share: view.numeric[shareAt] as number,
    weight: (tokens(view.block.text).length + 3) / total,
    span: spans[i],
    text: view.block.text,
  }));
  return page.truth.kind === "text" ? { page, text, blocks, declared, ...textProxy(textTokens, countsOf(shingleKeys(tokens(page.truth.text)))) } : { page, text, blocks, declared };
}

/** The page's score with the blocks `removed` taken out of its text: shingle tp/fp/fn, or snippet counts. */
export function proxyScore(recorded: RecordedPage, removed: readonly boolean[]): TpFpFn | SnippetCounts {
  const truth = recorded.page.truth;
  if (truth.kind === "snippets") {
    let text = recorded.text;
    for (const [i, block] of recorded.blocks.entries()) if (removed[i]) text = text.replace(block.text, " ");
    return snippetCounts(truth, text);
  }
  // Only the shingles that start within three tokens before a removed run of tokens, or in it, change; and the cut
  // joins the tokens before and after it into new ones.
  const keys = recorded.shingleKeys ?? [];
  const words = recorded.tokens ?? [];
  const truthCounts = recorded.truthShingles ?? new Map<string, number>();
  const runs: [number, number][] = [];
  for (const [i, block] of recorded.blocks.entries()) if (removed[i] && block.span) runs.push([...block.span]);
  runs.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && run[0] <= last[1]) last[1] = Math.max(last[1], run[1]);
    else merged.push(run);
  }
  const changes = new Map<string, number>();
  const change = (key: string, by: number) => changes.set(key, (changes.get(key) ?? 0) + by);
  const starts = new Set<number>();
  for (const [start, end] of merged) {
    for (let t = Math.max(0, start - 3); t < Math.min(end, keys.length); t++) starts.add(t);
    for (let before = 1; before <= 3; before++) {
      if (start - before < 0 || end + 4 - before > words.length) continue;
      change([...words.slice(start - before, start), ...words.slice(end, end + 4 - before)].join("\u0000"), 1);
    }
  }
  for (const t of starts) change(keys[t] as string, -1);
  let [tp, fp, fn] = recorded.counts ?? [0, 0, 0];
  for (const [key, by] of changes) {
    const truthCount = truthCounts.get(key) ?? 0;
    const before = recorded.predicted?.get(key) ?? 0;
    const after = before + by;
    tp += Math.min(truthCount, after) - Math.min(truthCount, before);
    fp += Math.max(0, after - truthCount) - Math.max(0, before - truthCount);
    fn += Math.max(0, truthCount - after) - Math.max(0, truthCount - before);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? [tp / sum, fp / sum, fn / sum] : [0, 0, 0];
}

/** F1, precision and recall of each source over `pages` with the blocks `removedOf` says removed (the proxy of a real extraction). */
export function proxySourceScores(pages: readonly RecordedPage[], removedOf: (page: RecordedPage) => boolean[], unchanged?: Map<RecordedPage, TpFpFn | SnippetCounts>): Map<string, Metrics> {
  const text = new Map<string, TpFpFn[]>();
  const snippets = new Map<string, SnippetCounts>();
  for (const page of pages) {
    const removed = removedOf(page);
    const cached = removed.includes(true) ? undefined : unchanged?.get(page);
    const score = cached ?? proxyScore(page, removed);
    if (!cached && unchanged && !removed.includes(true)) unchanged.set(page, score);
    if (score.length === 3) {
      if (!text.has(page.page.source)) text.set(page.page.source, []);
      text.get(page.page.source)?.push(score);
    }
    else snippets.set(page.page.source, (snippets.get(page.page.source) ?? [0, 0, 0, 0]).map((count, i) => count + (score[i] as number)) as SnippetCounts);
  }
  const scores = new Map<string, Metrics>();
  for (const [source, items] of text) scores.set(source, metricsFrom(items));
  for (const [source, counts] of snippets) scores.set(source, snippetMetrics(counts));
  return scores;
}

/** F1 of each source over `pages` with the blocks `removedOf` says removed (proxySourceScores' F1 alone). */
export function proxySourceF1(pages: readonly RecordedPage[], removedOf: (page: RecordedPage) => boolean[], unchanged?: Map<RecordedPage, TpFpFn | SnippetCounts>): Map<string, number> {
  return new Map([...proxySourceScores(pages, removedOf, unchanged)].map(([source, score]) => [source, score.f1]));
}

/** Per source and block kind: [labelled blocks, their tokens, the tokens the truth calls boilerplate]. */
export function kindTable(pages: readonly RecordedPage[]): Map<string, Map<BlockKind, [number, number, number]>> {
  const table = new Map<string, Map<BlockKind, [number, number, number]>>();
  for (const page of pages) {
    const source = page.page.source;
    if (!table.has(source)) table.set(source, new Map());
    const row = table.get(source) as Map<BlockKind, [number, number, number]>;
    for (const block of page.blocks) {
      if (block.label === undefined) continue;
      const kind = blockKind(block.numeric);
      const cell = row.get(kind) ?? [0, 0, 0];
      const count = Math.max(1, tokens(block.text).length);
      cell[0]++;
      cell[1] += count;
      if (block.label === 1) cell[2] += count;
      row.set(kind, cell);
    }
  }
  return table;
}

/**
 * Per source, the kinds its truth keeps: 10 labelled blocks or more, most of their tokens content. A source's
 * convention, read off its own labels (what "agreed" scoring leaves out for that source).
 */
export function keptKinds(pages: readonly RecordedPage[]): Map<string, Set<BlockKind>> {
  const kept = new Map<string, Set<BlockKind>>();
  for (const [source, row] of kindTable(pages)) {
    kept.set(source, new Set([...row].filter(([, [blocks, all, boilerplate]]) => blocks >= 10 && boilerplate < 0.5 * all).map(([kind]) => kind)));
  }
  return kept;
}

export interface TrainOptions {
  /** A class/id word enters the model when it appears on this many pages of at least two sources. */
  minPages?: number;
  iterations?: number;
  l2?: number;
  maxShare?: number;
  /** How much F1 a training source may lose at the chosen threshold (chooseThreshold). */
  tolerance?: number;
  /** "mean": the threshold raising the training sources' mean F1 most; "maximin": the one raising their least gain most. */
  criterion?: "mean" | "maximin";
  /** Which blocks the model may remove (BlockModel.gate); the fit and the threshold choice see only those. */
  gate?: "all" | "edges" | "tail" | "after" | "outside";
  /** The kinds of block the model may remove (BlockModel.kinds); absent: all. */
  kinds?: BlockKind[];
  /**
   * Score each training source only on the kinds its truth agrees are boilerplate (keptKinds): its blocks of a kind
   * it keeps are neither fitted nor counted when the threshold is chosen, so one source's convention (captions,
   * credits, bylines kept in its truth) does not veto a removal the others' truths call right.
   */
  agreed?: boolean;
  /** Whether class/id words enter the model (false: only the numeric features, name families included). */
  words?: boolean;
  /**
   * The pages the model runs on (BlockModel.pages): "declared" or "stated", only pages the publisher declares an
   * article (content-declared.ts PageGate); the threshold is chosen on those pages only, and the fit sees only them
   * unless `fitPages` is "all".
   */
  pages?: PageGate;
  /** The pages whose blocks the fit sees (default: `pages`): "all" fits on every page and applies on those `pages` names. */
  fitPages?: PageGate;
  /** A second model trained on the same pages with these options, its removals joining this one's (BlockModel.also). */
  also?: TrainOptions;
}

/** Whether `model` runs on the recorded page at all (BlockModel.pages). */
export function runsOn(model: Pick<BlockModel, "pages">, page: RecordedPage): boolean {
  return passesPageGate(model.pages ?? "all", page.declared);
}

/** The blocks of `page` that `model` (and the models it names in `also`) removes, as extraction would. */
export function removedBlocks(model: BlockModel, page: RecordedPage): boolean[] {
  const own = page.blocks.map((block) => runsOn(model, page) && removable(model, block.numeric) && boilerplateProbability(model, { numeric: block.numeric, words: block.words } as BlockView) >= model.threshold);
  if (!model.also) return own;
  const other = removedBlocks(model.also, page);
  return own.map((removed, i) => removed || (other[i] as boolean));
}

interface TrainingBlock {
  source: string;
  page: string;
  numeric: Float64Array;
  words: string[];
  label: 0 | 1;
  weight: number;
}

/**
 * Fits the model on the labelled blocks of `pages` (each source weighing the same) and picks its threshold on the
 * same pages (chooseThreshold).
 */
export function trainBlockModel(pages: readonly RecordedPage[], options: TrainOptions = {}): BlockModel {
  const minPages = options.minPages ?? 10;
  const iterations = options.iterations ?? 300;
  const l2 = options.l2 ?? 1e-4;
  const maxShare = options.maxShare ?? 0.25;
  const gate = options.gate ?? "all";
  const kinds = options.kinds;
  const pagesRun = options.pages ?? "all";
  const fitOn = options.fitPages ?? pagesRun;
  const gateModel = { maxShare, gate, ...(kinds ? { kinds } : {}) } as BlockModel;
  const records: TrainingBlock[] = [];
  const kept = options.agreed ? keptKinds(pages) : undefined;
  const scored = (page: RecordedPage, numeric: Float64Array) => !kept?.get(page.page.source)?.has(blockKind(numeric));
  for (const page of pages) {
    if (!passesPageGate(fitOn, page.declared)) continue;
    for (const block of page.blocks) {
      if (block.label !== undefined && removable(gateModel, block.numeric) && scored(page, block.numeric)) records.push({ source: page.page.source, page: page.page.id, numeric: block.numeric, words: block.words, label: block.label, weight: block.weight });
    }
  }

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
  const vocabulary = options.words === false ? [] : [...pagesOf.keys()].filter((word) => (pagesOf.get(word)?.size ?? 0) >= minPages && (sourcesOf.get(word)?.size ?? 0) >= 2).sort();
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
      const record = records[r] as TrainingBlock;
      const words = wordsOf[r] as number[];
      let z = theta[size - 1] as number;
      for (let i = 0; i < numericCount; i++) z += (theta[i] as number) * (record.numeric[i] as number);
      for (const w of words) z += theta[numericCount + w] as number;
      const error = (1 / (1 + Math.exp(-z)) - record.label) * (weights[r] as number);
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
    gate,
    ...(kinds ? { kinds: [...kinds] } : {}),
    ...(pagesRun !== "all" ? { pages: pagesRun } : {}),
  };
  model.threshold = chooseThreshold(model, pages, options.tolerance ?? 0.0005, options.criterion ?? "mean", scored);
  if (options.also) model.also = trainBlockModel(pages, options.also);
  return model;
}

/** Thresholds tried, most confident first. */
const THRESHOLDS = [0.99, 0.98, 0.97, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3];

/**
 * The threshold whose removals raise the training sources' F1 most on average (the F1 proxy: the blocks' tokens cut
 * out of today's text and scored as the harness scores) while none of them loses more than `tolerance`; above 1
 * (the filter removes nothing) when no threshold gains. Only the sources with a block the model may remove and is
 * scored on are counted.
 */
function chooseThreshold(model: BlockModel, pages: readonly RecordedPage[], tolerance: number, criterion: "mean" | "maximin", scored: (page: RecordedPage, numeric: Float64Array) => boolean): number {
  const probabilities = new Map(pages.map((page) => [page, page.blocks.map((block) => (runsOn(model, page) && removable(model, block.numeric) && scored(page, block.numeric) ? boilerplateProbability(model, { numeric: block.numeric, words: block.words } as BlockView) : 0))]));
  const at = (threshold: number) => (page: RecordedPage) => (probabilities.get(page) as number[]).map((p) => p >= threshold);
  const unchanged = new Map<RecordedPage, TpFpFn | SnippetCounts>();
  const before = proxySourceF1(pages, at(2), unchanged);
  // A source none of whose blocks the model may remove (outside its gate and kinds, or not scored) has no say.
  const inScope = new Set(pages.filter((page) => (probabilities.get(page) as number[]).some((p) => p > 0)).map((page) => page.page.source));
  let best = 1.01;
  let bestGain = 0;
  for (const threshold of THRESHOLDS) {
    const after = proxySourceF1(pages, at(threshold), unchanged);
    const deltas = [...before].filter(([source]) => inScope.has(source)).map(([source, f1]) => (after.get(source) ?? 0) - f1);
    if (deltas.length === 0) break;
    const gain = criterion === "maximin" ? Math.min(...deltas) : deltas.reduce((sum, delta) => sum + delta, 0) / deltas.length;
    if (Math.min(...deltas) >= -tolerance && gain > bestGain) (bestGain = gain), (best = threshold);
  }
  return best;
}
