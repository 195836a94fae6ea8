/**
 * @module brief/extractive — the briefing without a model: the page's best sentences (ranked by
 * brief/rank), quoted in page order, each with its offsets. Also picks the sentences a model
 * briefing rests on.
 */
import { rankSentences } from "./rank.ts";
import { type Sentence, splitSentences } from "./sentences.ts";

export interface BriefBullet {
  text: string;
  /** The page sentences the bullet rests on, as offsets into the page text (UTF-16 code units). */
  sentences: { start: number; end: number }[];
}

export const bulletCount = 8;
/** Sentences handed to the model. */
export const modelSentenceCount = 60;

/** The page's sentences and the `count` best of them in page order. */
export function selectSentences(text: string, options: { focus?: string; count: number; language?: string }): { all: Sentence[]; chosen: Sentence[] } {
  const all = splitSentences(text, options.language);
  const { order } = rankSentences(all, { count: options.count, ...(options.focus ? { focus: options.focus } : {}) });
  const chosen = [...order].sort((a, b) => a - b).map((i) => all[i]!);
  return { all, chosen };
}

export function extractiveBrief(text: string, options: { focus?: string; language?: string } = {}): { bullets: BriefBullet[]; sentenceCount: number } {
  const { all, chosen } = selectSentences(text, { ...options, count: bulletCount });
  return {
    bullets: chosen.map((s) => ({ text: s.text, sentences: [{ start: s.start, end: s.end }] })),
    sentenceCount: all.length,
  };
}
