/**
 * @module brief/rank — extractive ranking of a page's sentences: TF-IDF vectors, a LexRank-style
 * centrality (power iteration over the cosine-similarity graph) whose teleport favours early
 * sentences and sentences with the focus terms, then MMR (maximal marginal relevance) so the
 * chosen sentences do not repeat each other. Sparse throughout: similarities come from an
 * inverted index, never an n² loop over the vocabulary.
 */
import type { Sentence } from "./sentences.ts";

const stopwords = new Set(
  (
    "a an the and or but if then else of to in on at by for with from as is are was were be been being it its this that these those there here " +
    "i you he she we they me him her us them my your his our their not no nor so than too very can could will would should may might must shall do does did " +
    "has have had having what which who whom whose when where why how all any both each few more most other some such only own same just also into over under " +
    "about above below up down out off again further once s t don now"
  ).split(" "),
);

const letterOrDigit = /[\p{L}\p{N}]/u;
const wordCharCache = new Map<number, boolean>();

/** Letters and digits of any script; surrogate halves count (they only occur inside words here). */
function isWordCode(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
  if (c >= 0xd800 && c <= 0xdfff) return true;
  let known = wordCharCache.get(c);
  if (known === undefined) {
    known = letterOrDigit.test(String.fromCharCode(c));
    wordCharCache.set(c, known);
  }
  return known;
}

const isApostrophe = (c: number) => c === 39 || c === 0x2019;

function addTerm(out: string[], raw: string): void {
  let end = raw.length;
  while (end > 0 && (isApostrophe(raw.charCodeAt(end - 1)) || raw.charCodeAt(end - 1) === 45)) end--;
  if (end > 2 && raw.charCodeAt(end - 1) === 115 && isApostrophe(raw.charCodeAt(end - 2))) end -= 2;
  if (end < 2) return;
  let w = end === raw.length ? raw : raw.slice(0, end);
  if (stopwords.has(w)) return;
  // A light stem so "rates" and "rate" meet.
  if (w.length > 4 && w.charCodeAt(w.length - 1) === 115 && w.charCodeAt(w.length - 2) !== 115) w = w.slice(0, -1);
  out.push(w);
}

/** Lower-case content words (a hand-written scanner: this runs on every sentence of every page). */
export function terms(text: string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (isWordCode(c) || (start >= 0 && (c === 39 || c === 45 || c === 0x2019))) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      addTerm(out, lower.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) addTerm(out, lower.slice(start));
  return out;
}

export interface RankOptions {
  readonly focus?: string;
  /** How many to select. */
  readonly count: number;
  /** MMR trade-off: 1 = score only, 0 = novelty only. */
  readonly lambda?: number;
}

export interface Ranked {
  /** Indexes into the sentence list, best first. */
  readonly order: readonly number[];
  readonly scores: Float64Array;
}

/** Sentences worth ranking: prose of a useful length, not menus or one-word headings. */
export function isCandidate(s: Sentence): boolean {
  if (s.text.length < 25 || s.text.length > 1000) return false;
  let spaces = 0;
  for (let i = 0; i < s.text.length && spaces < 4; i++) if (s.text.charCodeAt(i) === 32) spaces++;
  return spaces >= 4 && /[\p{Ll}]/u.test(s.text);
}

/** Similarities below this are left out of the graph (LexRank's threshold idea, kept low). */
const minSimilarity = 0.05;

export function rankSentences(sentences: readonly Sentence[], options: RankOptions): Ranked {
  const n = sentences.length;
  const scores = new Float64Array(n);
  if (n === 0) return { order: [], scores };
  const ids = new Map<string, number>();
  const df: number[] = [];
  const docs: { ids: number[]; tf: number[] }[] = [];
  for (const s of sentences) {
    const counts = new Map<number, number>();
    for (const w of terms(s.text)) {
      let id = ids.get(w);
      if (id === undefined) {
        id = ids.size;
        ids.set(w, id);
        df.push(0);
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const id of counts.keys()) df[id]!++;
    docs.push({ ids: [...counts.keys()], tf: [...counts.values()] });
  }
  // TF-IDF, unit length, kept per term as postings of (sentence, weight). Terms in more than half
  // of the sentences carry nothing; terms in more than a tenth link too much of the page to tell
  // sentences apart and would cost df² to pair up, so they count in a sentence's length only.
  const linkingDf = Math.max(20, n / 10);
  const postingDocs: number[][] = df.map(() => []);
  const postingWeights: number[][] = df.map(() => []);
  const docWeights: Float64Array[] = [];
  docs.forEach((d, i) => {
    const w = new Float64Array(d.ids.length);
    let norm = 0;
    for (let k = 0; k < d.ids.length; k++) {
      const id = d.ids[k]!;
      const idf = df[id]! > n / 2 && n > 4 ? 0 : Math.log((n + 1) / df[id]!);
      w[k] = (1 + Math.log(d.tf[k]!)) * idf;
      norm += w[k]! * w[k]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < w.length; k++) {
      w[k]! /= norm;
      if (w[k]! <= 0 || df[d.ids[k]!]! > linkingDf) continue;
      postingDocs[d.ids[k]!]!.push(i);
      postingWeights[d.ids[k]!]!.push(w[k]!);
    }
    docWeights.push(w);
  });

  // Similarity rows (sparse, thresholded) from the postings: one dense scratch row at a time.
  const scratch = new Float64Array(n);
  const touched: number[] = [];
  const rowCols: Int32Array[] = [];
  const rowVals: Float64Array[] = [];
  for (let i = 0; i < n; i++) {
    const d = docs[i]!;
    const own = docWeights[i]!;
    for (let m = 0; m < d.ids.length; m++) {
      const id = d.ids[m]!;
      const wi = own[m]!;
      if (wi <= 0 || df[id]! > linkingDf) continue;
      const list = postingDocs[id]!;
      const weights = postingWeights[id]!;
      for (let k = 0; k < list.length; k++) {
        const j = list[k]!;
        if (j === i) continue;
        if (scratch[j] === 0) touched.push(j);
        scratch[j]! += wi * weights[k]!;
      }
    }
    const cols: number[] = [];
    const vals: number[] = [];
    for (const j of touched) {
      if (scratch[j]! >= minSimilarity) {
        cols.push(j);
        vals.push(scratch[j]!);
      }
      scratch[j] = 0;
    }
    touched.length = 0;
    rowCols.push(Int32Array.from(cols));
    rowVals.push(Float64Array.from(vals));
  }
  const degree = rowVals.map((vals) => vals.reduce((a, b) => a + b, 0));

  // Teleport: early sentences and focus-term sentences are favoured.
  const focus = new Set(options.focus ? terms(options.focus) : []);
  const focusIds = new Set([...focus].map((w) => ids.get(w)).filter((id): id is number => id !== undefined));
  const teleport = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    let t = 1 + 1 / (1 + i / 10);
    if (focus.size > 0) {
      let hits = 0;
      for (const id of docs[i]!.ids) if (focusIds.has(id)) hits++;
      t *= 1 + 4 * (hits / focus.size);
    }
    teleport[i] = t;
    total += t;
  }
  for (let i = 0; i < n; i++) teleport[i]! /= total;

  const damping = 0.85;
  let rank = Float64Array.from(teleport);
  let next = new Float64Array(n);
  for (let iteration = 0; iteration < 30; iteration++) {
    next.fill(0);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      if (degree[i] === 0) {
        dangling += rank[i]!;
        continue;
      }
      const share = rank[i]! / degree[i]!;
      const cols = rowCols[i]!;
      const vals = rowVals[i]!;
      for (let k = 0; k < cols.length; k++) next[cols[k]!]! += share * vals[k]!;
    }
    let delta = 0;
    for (let i = 0; i < n; i++) {
      const value = damping * (next[i]! + dangling * teleport[i]!) + (1 - damping) * teleport[i]!;
      delta += Math.abs(value - rank[i]!);
      next[i] = value;
    }
    [rank, next] = [next, rank];
    if (delta < 1e-6) break;
  }
  // With a focus, the teleport weighs in again so focus sentences win ties of centrality.
  let max = 0;
  for (let i = 0; i < n; i++) {
    scores[i] = rank[i]! * (focus.size > 0 ? teleport[i]! * n : 1);
    if (scores[i]! > max) max = scores[i]!;
  }
  max ||= 1;

  // MMR over the candidates.
  const lambda = options.lambda ?? 0.7;
  const remaining = new Set<number>();
  for (let i = 0; i < n; i++) if (isCandidate(sentences[i]!)) remaining.add(i);
  const order: number[] = [];
  const closest = new Float64Array(n);
  let refilled = false;
  while (order.length < options.count) {
    // Short or odd sentences are taken only when the prose runs out, so a page of 8 sentences gives 8.
    if (remaining.size === 0 && !refilled) {
      refilled = true;
      const chosen = new Set(order);
      for (let i = 0; i < n; i++) if (!chosen.has(i)) remaining.add(i);
    }
    if (remaining.size === 0) break;
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (const i of remaining) {
      const value = lambda * (scores[i]! / max) - (1 - lambda) * closest[i]!;
      if (value > bestValue) (bestValue = value), (best = i);
    }
    order.push(best);
    remaining.delete(best);
    const cols = rowCols[best]!;
    const vals = rowVals[best]!;
    for (let k = 0; k < cols.length; k++) if (vals[k]! > closest[cols[k]!]!) closest[cols[k]!] = vals[k]!;
  }
  return { order, scores };
}
