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

export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)) {
    let w = m[0].replace(/['’]s$/, "");
    if (w.length < 2 || stopwords.has(w)) continue;
    // A light stem so "rates" and "rate" meet.
    if (w.length > 4 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
    out.push(w);
  }
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
  const words = s.text.split(/\s+/).length;
  return words >= 5 && /[\p{Ll}]/u.test(s.text);
}

export function rankSentences(sentences: readonly Sentence[], options: RankOptions): Ranked {
  const n = sentences.length;
  const scores = new Float64Array(n);
  if (n === 0) return { order: [], scores };
  const ids = new Map<string, number>();
  const df: number[] = [];
  const docs: { ids: Int32Array; tf: Float64Array }[] = [];
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
    docs.push({ ids: Int32Array.from(counts.keys()), tf: Float64Array.from(counts.values()) });
  }
  // TF-IDF, unit length. Terms in more than half of the sentences carry nothing.
  const postings: number[][] = df.map(() => []);
  const weights: Float64Array[] = [];
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
      if (w[k]! > 0) postings[d.ids[k]!]!.push(i);
    }
    weights.push(w);
  });

  // Similarity rows (sparse) from the inverted index.
  const weightOf = (i: number, id: number) => {
    const d = docs[i]!;
    for (let k = 0; k < d.ids.length; k++) if (d.ids[k] === id) return weights[i]![k]!;
    return 0;
  };
  const rows: Map<number, number>[] = sentences.map(() => new Map());
  for (let i = 0; i < n; i++) {
    const d = docs[i]!;
    const row = rows[i]!;
    for (let k = 0; k < d.ids.length; k++) {
      const wi = weights[i]![k]!;
      if (wi === 0) continue;
      for (const j of postings[d.ids[k]!]!) if (j !== i) row.set(j, (row.get(j) ?? 0) + wi * weightOf(j, d.ids[k]!));
    }
  }
  const degree = rows.map((r) => {
    let sum = 0;
    for (const v of r.values()) sum += v;
    return sum;
  });

  // Teleport: early sentences and focus-term sentences are favoured.
  const focus = new Set(options.focus ? terms(options.focus) : []);
  const teleport = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    let t = 1 + 1 / (1 + i / 10);
    if (focus.size > 0) {
      let hits = 0;
      for (const w of new Set(terms(sentences[i]!.text))) if (focus.has(w)) hits++;
      t *= 1 + 4 * (hits / focus.size);
    }
    teleport[i] = t;
    total += t;
  }
  for (let i = 0; i < n; i++) teleport[i]! /= total;

  const damping = 0.85;
  let rank = Float64Array.from(teleport);
  for (let iteration = 0; iteration < 30; iteration++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      if (degree[i] === 0) {
        dangling += rank[i]!;
        continue;
      }
      const share = rank[i]! / degree[i]!;
      for (const [j, v] of rows[i]!) next[j]! += share * v;
    }
    let delta = 0;
    for (let i = 0; i < n; i++) {
      const value = damping * (next[i]! + dangling * teleport[i]!) + (1 - damping) * teleport[i]!;
      delta += Math.abs(value - rank[i]!);
      next[i] = value;
    }
    rank = next;
    if (delta < 1e-6) break;
  }
  // Centrality alone favours long sentences a little less than raw degree does; focus weighs in again here.
  for (let i = 0; i < n; i++) scores[i] = rank[i]! * (focus.size > 0 ? teleport[i]! * n : 1);

  // MMR over the candidates.
  const lambda = options.lambda ?? 0.7;
  const max = Math.max(...scores) || 1;
  const remaining = new Set<number>();
  for (let i = 0; i < n; i++) if (isCandidate(sentences[i]!)) remaining.add(i);
  if (remaining.size === 0) for (let i = 0; i < n; i++) remaining.add(i);
  const order: number[] = [];
  const closest = new Float64Array(n);
  while (order.length < options.count && remaining.size > 0) {
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (const i of remaining) {
      const value = lambda * (scores[i]! / max) - (1 - lambda) * closest[i]!;
      if (value > bestValue) (bestValue = value), (best = i);
    }
    order.push(best);
    remaining.delete(best);
    for (const [j, v] of rows[best]!) if (v > closest[j]!) closest[j] = v;
  }
  return { order, scores };
}
